package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

// pageView is one unit of the document page: its heading ("Page 3",
// "Slide 3"; "" for a single unit) and the citation link that opens it.
type pageView struct {
	N        int
	Heading  string
	Link     string
	Segments []library.ViewPart
}

type documentData struct {
	Doc      docRow
	Paged    bool
	Pages    []pageView
	LinkText string // the words of the units' links
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
	d.LinkText = "open at this page"
	if doc.MediaType != "application/pdf" {
		d.LinkText = "open in the text view"
	}
	h.render(w, r, http.StatusOK, "document", doc.Title, d)
}

// pageViews divides the text unit by unit (library.NewView, as the cited
// text view does) and links each unit where a citation of it opens: a
// PDF's original at the page, any other document's text view at the unit.
func (h *Handler) pageViews(r *http.Request, doc *store.Document, chunks []*store.Chunk) []pageView {
	v := library.NewView(doc, chunks)
	out := make([]pageView, 0, len(v.Units))
	for i, u := range v.Units {
		pv := pageView{N: i + 1, Heading: u.Heading, Segments: u.Parts}
		switch {
		case v.Paged && len(doc.PageStarts) > 0:
			pv.Link = h.opts.Link(r, doc.ID, i+1, "")
		case len(v.Units) > 1:
			pv.Link = h.opts.Link(r, doc.ID, 0, u.Anchor)
		}
		out = append(out, pv)
	}
	return out
}
