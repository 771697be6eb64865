package web

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"

	"github.com/mcpvec/mcpvec/server/library"
)

func (h *Handler) addPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "add", "Add documents", h.addData(map[string]any{"CanWrite": h.opts.Ingest != nil, "Result": "", "Error": ""}))
}

// addData adds the remembered sync roots to the add page's data.
func (h *Handler) addData(data map[string]any) map[string]any {
	if h.opts.Roots != nil && h.opts.Resync != nil {
		roots, err := h.opts.Roots()
		if err != nil {
			h.log.Warn("web: sync roots", "err", err)
		}
		data["Roots"] = roots
	}
	return data
}

// resync syncs one remembered folder again through Options.Resync; a path
// that is not a remembered root is refused, so the form cannot name any
// folder on the machine.
func (h *Handler) resync(w http.ResponseWriter, r *http.Request) {
	if h.opts.Resync == nil || h.opts.Roots == nil {
		h.message(w, r, http.StatusNotImplemented, "Sync is off", "This server cannot sync folders.")
		return
	}
	root := r.PostFormValue("root")
	roots, err := h.opts.Roots()
	if err != nil || !slices.Contains(roots, root) {
		h.message(w, r, http.StatusNotFound, "Unknown folder", "That folder is not one `mcpvec sync` remembers.")
		return
	}
	sum, err := h.opts.Resync(r.Context(), root)
	data := map[string]any{"CanWrite": h.opts.Ingest != nil, "Result": sum, "Error": ""}
	status := http.StatusOK
	if err != nil {
		h.log.Warn("web: resync", "root", root, "err", err)
		data["Error"], status = "The sync did not finish cleanly: "+err.Error(), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "add", "Add documents", h.addData(data))
}

// upload reads the form's files and runs them through Options.Ingest.
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	if h.opts.Ingest == nil {
		h.message(w, r, http.StatusNotImplemented, "Uploads are off", "This server was started without an ingest pipeline.")
		return
	}
	files, err := readFiles(r.MultipartForm)
	if err != nil || len(files) == 0 {
		msg := "Choose at least one file."
		if err != nil {
			msg = err.Error()
		}
		h.render(w, r, http.StatusBadRequest, "add", "Add documents", h.addData(map[string]any{"CanWrite": true, "Error": msg}))
		return
	}
	ups, err := h.opts.Ingest(r.Context(), files)
	sum, failed := uploadSummary(ups)
	data := map[string]any{"CanWrite": true, "Uploads": ups, "Summary": sum, "Failed": failed, "Error": ""}
	status := http.StatusOK
	if failed {
		status = http.StatusUnprocessableEntity
	}
	if err != nil {
		h.log.Warn("web: ingest upload", "files", len(files), "err", err)
		data["Error"], status = "The upload did not finish: "+err.Error(), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "add", "Add documents", h.addData(data))
}

// readFiles loads the "files" parts of a parsed form.
func readFiles(form *multipart.Form) ([]File, error) {
	if form == nil {
		return nil, nil
	}
	var out []File
	for _, fh := range form.File["files"] {
		f, err := fh.Open()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", fh.Filename, err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", fh.Filename, err)
		}
		name := filepath.Base(filepath.Clean("/" + filepath.FromSlash(fh.Filename)))
		if name == "/" || name == "." || name == ".." {
			return nil, fmt.Errorf("bad file name %q", fh.Filename)
		}
		out = append(out, File{Name: name, Data: data})
	}
	return out, nil
}

// delete removes one document through the library's write path and
// persists the indexes, as `mcpvec rm` does.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	if h.opts.ReadOnly {
		h.message(w, r, http.StatusForbidden, "Read-only", "This library is served read-only: documents cannot be removed.")
		return
	}
	id := r.PostFormValue("id")
	lib := h.opts.Library.Current()
	n, err := lib.Remove(id)
	if err == nil {
		err = lib.Save()
	}
	switch {
	case err == nil:
		h.log.Info("web: removed document", "id", id, "passages", n)
		http.Redirect(w, r, "/?removed="+url.QueryEscape(id), http.StatusSeeOther)
	case errors.Is(err, library.ErrNotFound):
		h.message(w, r, http.StatusNotFound, "Not found", "No document has that id.")
	default:
		h.log.Error("web: remove", "id", id, "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The document could not be removed; see the server log.")
	}
}
