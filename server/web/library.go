package web

import (
	"cmp"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/internal/bytesize"
	"github.com/mcpvec/mcpvec/store"
)

// docRow is one line of the library table.
type docRow struct {
	ID, Title, Type, Source, URL string
	Kind                         string // Type as people call it ("Word")
	Pages, Passages              int
	Size                         int64
	Ingested                     time.Time
	titleKey                     string // the title lowercased once: sorting 250,000 rows lowercased 9M titles
}

type libraryData struct {
	Docs                      []docRow
	Q, Type, Sort, Dir        string
	Types                     []string
	Documents, Passages       int
	Pages                     int
	Bytes                     int64
	Shown                     int // documents that pass the filter
	Page, PageCount, From, To int // the page shown, and its rows From-To of Shown
	PrevURL, NextURL          string
	Embedder, Path, FileSize  string
	Vectors, Lexical, Version string
	CanWrite                  bool
}

var sorts = map[string]func(a, b docRow) int{
	"title":    func(a, b docRow) int { return cmp.Compare(a.titleKey, b.titleKey) },
	"type":     func(a, b docRow) int { return cmp.Compare(a.Kind, b.Kind) },
	"pages":    func(a, b docRow) int { return cmp.Compare(a.Pages, b.Pages) },
	"passages": func(a, b docRow) int { return cmp.Compare(a.Passages, b.Passages) },
	"size":     func(a, b docRow) int { return cmp.Compare(a.Size, b.Size) },
	"ingested": func(a, b docRow) int { return a.Ingested.Compare(b.Ingested) },
}

func (h *Handler) libraryPage(w http.ResponseWriter, r *http.Request) {
	docs, err := h.opts.Library.Current().Listing(r.Context())
	if err != nil {
		h.log.Error("web: list documents", "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The library could not be read; see the server log.")
		return
	}
	q := r.URL.Query()
	d := libraryData{Q: q.Get("q"), Type: q.Get("type"), Sort: q.Get("sort"), Dir: q.Get("dir"), CanWrite: h.canWrite(r)}
	if sorts[d.Sort] == nil {
		d.Sort = "title"
	}
	if d.Dir != "desc" {
		d.Dir = "asc"
	}
	l := h.lists.get(docs, listKey{d.Q, d.Type, d.Sort, d.Dir}, func() *listing { return d.list(docs) })
	d.Docs, d.Types, d.Documents, d.Passages, d.Pages, d.Bytes = l.rows, l.types, l.documents, l.passages, l.pages, l.bytes
	d.Shown = len(d.Docs)
	d.paginate(r, h.opts.Base)
	for i := range d.Docs {
		h.cite(r, &d.Docs[i])
	}
	h.describe(r.Context(), &d)
	if !sessionOf(r).person.IsZero() {
		d.Path = "" // where the file lives on the server is the owner's business
	}
	h.render(w, r, http.StatusOK, "library", "Library", d)
}

// libraryPageSize is how many documents the library page lists at once (a
// variable for tests). Listed whole, the 250,000 documents of the 1M scale
// library made a 246 MB page, built in memory, in 15.6 s.
var libraryPageSize = 200

// paginate keeps the rows of the page r asks for (?page=N, from 1; out of
// range is the nearest page) and links the pages before and after it with
// the same filter and order, under base (Options.Base).
func (d *libraryData) paginate(r *http.Request, base string) {
	d.PageCount = max(1, (d.Shown+libraryPageSize-1)/libraryPageSize)
	q := r.URL.Query()
	p, _ := strconv.Atoi(q.Get("page"))
	d.Page = min(max(p, 1), d.PageCount)
	lo := (d.Page - 1) * libraryPageSize
	hi := min(lo+libraryPageSize, d.Shown)
	d.Docs, d.From, d.To = slices.Clone(d.Docs[lo:hi]), lo+1, hi // the rows are shared (listCache)
	link := func(page int) string {
		q.Set("page", strconv.Itoa(page))
		return base + "/?" + q.Encode()
	}
	if d.Page > 1 {
		d.PrevURL = link(d.Page - 1)
	}
	if d.Page < d.PageCount {
		d.NextURL = link(d.Page + 1)
	}
}

// list filters docs by d's query and type and sorts the rows by its
// order, counting totals over all docs.
func (d *libraryData) list(docs []*store.Document) *listing {
	l := &listing{}
	types := map[string]bool{}
	needle := strings.ToLower(strings.TrimSpace(d.Q))
	for _, doc := range docs {
		l.documents++
		l.passages += len(doc.Chunks)
		l.pages += doc.Pages
		l.bytes += doc.Size
		types[doc.MediaType] = true
		if d.Type != "" && doc.MediaType != d.Type {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(doc.Title+" "+doc.SourcePath+" "+doc.ID), needle) {
			continue
		}
		l.rows = append(l.rows, rowOf(doc))
	}
	l.types = make([]string, 0, len(types))
	for t := range types {
		l.types = append(l.types, t)
	}
	slices.SortFunc(l.types, func(a, b string) int { return cmp.Compare(kindOf(a), kindOf(b)) }) // as the page names them
	slices.SortStableFunc(l.rows, func(a, b docRow) int {
		if d.Dir == "desc" {
			return sorts[d.Sort](b, a)
		}
		return sorts[d.Sort](a, b)
	})
	return l
}

func (h *Handler) row(r *http.Request, doc *store.Document) docRow {
	d := rowOf(doc)
	h.cite(r, &d)
	return d
}

// rowOf is doc's row with URL its own source URL, "" if it has none (see
// cite).
func rowOf(doc *store.Document) docRow {
	src := doc.SourcePath
	if src == "" {
		src = doc.SourceURL
	}
	return docRow{ID: doc.ID, Title: doc.Title, Type: doc.MediaType, Kind: kindOf(doc.MediaType), Source: src, URL: doc.SourceURL,
		Pages: doc.Pages, Passages: len(doc.Chunks), Size: doc.Size, Ingested: doc.IngestedAt,
		titleKey: strings.ToLower(doc.Title)}
}

// cite gives a row without a source URL the server's link to the document.
// The library page does it for the rows it shows only, not for every
// document it filters and sorts.
func (h *Handler) cite(r *http.Request, d *docRow) {
	if d.URL == "" {
		d.URL = h.opts.Link(r, d.ID, 0, "")
	}
}

// describe fills what `mcpvec info` knows: embedder, index sizes, file.
func (h *Handler) describe(ctx context.Context, d *libraryData) {
	st := h.opts.Library.Current().LoadedIndexStats(ctx)
	d.Embedder, d.Version = h.opts.Embedder, h.opts.Version
	d.Vectors = formatCount(st.VectorPassages) + " passages in the vector index"
	if st.VectorsDeferred {
		d.Vectors = "vector index not loaded (the first hybrid or vector search loads it)"
	}
	d.Lexical = formatCount(st.LexicalPassages) + " passages in the lexical index"
	d.Path = h.opts.LibraryPath
	if fi, err := os.Stat(h.opts.LibraryPath); err == nil {
		d.FileSize = bytesize.Format(fi.Size())
	}
	if d.Path != "" {
		d.Path = filepath.Clean(d.Path)
	}
}
