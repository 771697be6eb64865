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
  if (form && progress) {
    form.addEventListener("submit", function () {
      progress.textContent = "Uploading and ingesting " + input.files.length + " file(s)…";
    });
  }
})();
