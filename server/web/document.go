package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/library"
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
	Unit     string // what a unit is called: "page", "slide", "sheet", …
	FoldList bool   // the list of units is long: fold it away
	Passages []*store.Chunk
	CanWrite bool
}

// foldUnits is how many units the document page lists before it folds the
// list into a disclosure.
const foldUnits = 40

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
	d := documentData{Doc: h.row(r, doc), Paged: len(doc.PageStarts) > 0, Passages: chunks, CanWrite: h.canWrite(r)}
	d.Pages, d.Unit = h.pageViews(r, doc, chunks)
	if p := r.URL.Query().Get("page"); p != "" {
		n, _ := strconv.Atoi(p)
		n = min(max(n, 1), max(len(d.Pages), 1))
		http.Redirect(w, r, h.opts.Base+"/ui/doc/"+url.PathEscape(id)+"#page-"+strconv.Itoa(n), http.StatusSeeOther)
		return
	}
	d.FoldList = len(d.Pages) > foldUnits
	d.LinkText = "open at this page"
	if doc.MediaType != "application/pdf" {
		d.LinkText = "open in the text view"
	}
	h.render(w, r, http.StatusOK, "document", doc.Title, d)
}

// pageViews divides the text unit by unit (library.NewView, as the cited
// text view does) and links each unit where a citation of it opens: a
// PDF's original at the page, any other document's text view at the unit.
// It returns what a unit is called too ("page" unless the view's anchors
// say "slide", "sheet", …).
func (h *Handler) pageViews(r *http.Request, doc *store.Document, chunks []*store.Chunk) ([]pageView, string) {
	v := library.NewView(doc, chunks)
	unit := "page"
	if len(v.Units) > 1 && !v.Paged {
		if i := strings.LastIndexByte(v.Units[0].Anchor, '-'); i > 0 {
			unit = v.Units[0].Anchor[:i]
		}
	}
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
	return out, unit
}
