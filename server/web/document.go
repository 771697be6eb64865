package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

type pageView struct {
	N        int
	Link     string
	Segments []library.ViewPart
}

type documentData struct {
	Doc      docRow
	Paged    bool
	Pages    []pageView
	Passages []*store.Chunk
	CanWrite bool
}

func (h *Handler) documentPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	doc, chunks, err := h.opts.Library.Current().Document(r.Context(), id)
	if errors.Is(err, library.ErrNotFound) {
		h.message(w, r, http.StatusNotFound, "Not found", "No document has the id "+strconv.Quote(id)+".")
		return
	}
	if err != nil {
		h.log.Error("web: read document", "id", id, "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The document could not be read; see the server log.")
		return
	}
	d := documentData{Doc: h.row(r, doc), Paged: len(doc.PageStarts) > 0, Passages: chunks, CanWrite: h.opts.Ingest != nil}
	d.Pages = h.pageViews(r, doc, chunks)
	h.render(w, r, http.StatusOK, "document", doc.Title, d)
}

// pageViews splits the text page by page and marks where each passage starts.
func (h *Handler) pageViews(r *http.Request, doc *store.Document, chunks []*store.Chunk) []pageView {
	starts := doc.PageStarts
	if len(starts) == 0 {
		starts = []int{0}
	}
	out := make([]pageView, 0, len(starts))
	for i, ps := range starts {
		pe := len(doc.Text)
		if i+1 < len(starts) {
			pe = starts[i+1]
		}
		ps, pe = min(ps, len(doc.Text)), min(pe, len(doc.Text))
		pv := pageView{N: i + 1}
		if len(doc.PageStarts) > 0 {
			pv.Link = h.opts.Link(r, doc.ID, i+1)
		}
		pv.Segments = library.SplitAtPassages(doc.Text, ps, pe, chunks)
		out = append(out, pv)
	}
	return out
}
