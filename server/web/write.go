package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpvec/mcpvec/library"
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

// delete removes one document through the library's write path and
// persists the indexes, as `mcpvec rm` does.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	if h.opts.ReadOnly {
		h.message(w, r, http.StatusForbidden, "Read-only", "This library is served read-only: documents cannot be removed.")
		return
	}
	id := r.PostFormValue("id")
	lib := h.opts.Library.Current()
	n, err := lib.Remove(r.Context(), id)
	if err == nil {
		err = lib.Save(r.Context())
	}
	switch {
	case err == nil:
		h.log.Info("web: removed document", "id", id, "passages", n)
		if h.opts.Removed != nil {
			h.opts.Removed(r.Context(), id, n)
		}
		http.Redirect(w, r, h.opts.Base+"/?removed="+url.QueryEscape(id), http.StatusSeeOther)
	case errors.Is(err, library.ErrNotFound):
		h.message(w, r, http.StatusNotFound, "Not found", "No document has that id.")
	default:
		h.log.Error("web: remove", "id", id, "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The document could not be removed; see the server log.")
	}
}
