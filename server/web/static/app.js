// mcpvec web: small progressive enhancements; every page works without it.
(function () {
  "use strict";
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.addEventListener("click", function () {
      var el = document.getElementById(b.dataset.copy);
      if (!el || !navigator.clipboard) return;
      navigator.clipboard.writeText(el.textContent).then(function () { b.textContent = "Copied"; });
    });
  });
  document.querySelectorAll("form.confirm").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!window.confirm("Delete this document from the library?")) e.preventDefault();
    });
  });
  var drop = document.getElementById("drop"), input = document.getElementById("files");
  var form = document.getElementById("upload"), progress = document.getElementById("progress");
  if (drop && input) {
    ["dragenter", "dragover"].forEach(function (t) {
      drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      drop.addEventListener(t, function () { drop.classList.remove("over"); });
    });
    drop.addEventListener("drop", function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) input.files = e.dataTransfer.files;
      if (progress) progress.textContent = input.files.length + " file(s) ready.";
    });
  }
  // Upload with progress: send the form with XMLHttpRequest, show the
  // percentage sent, then "Ingesting…" until the server answers, and show
  // its answer in place. Without script the form posts normally.
  if (form && progress && window.XMLHttpRequest && window.FormData && window.DOMParser) {
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var n = input.files.length, xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.upload.addEventListener("progress", function (ev) {
        if (!ev.lengthComputable) return;
        progress.textContent = ev.loaded < ev.total ?
          "Uploading " + n + " file(s): " + Math.round(100 * ev.loaded / ev.total) + "%" :
          "Ingesting " + n + " file(s)…";
      });
      xhr.addEventListener("load", function () {
        var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var main = doc.getElementById("main");
        if (main) document.getElementById("main").replaceWith(main); else progress.textContent = "Upload failed (" + xhr.status + ").";
      });
      xhr.addEventListener("error", function () { progress.textContent = "Upload failed: the server did not answer."; });
      progress.textContent = "Uploading " + n + " file(s)…";
      xhr.send(new FormData(form));
    });
  }
})();
