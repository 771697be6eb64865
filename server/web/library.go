package web

import (
	"cmp"
	"context"
	"maps"
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
	q := r.URL.Query()
	d := libraryData{Q: q.Get("q"), Type: q.Get("type"), Sort: q.Get("sort"), Dir: q.Get("dir"), CanWrite: h.canWrite(r)}
	if sorts[d.Sort] == nil {
		d.Sort = "title"
	}
	if d.Dir != "desc" {
		d.Dir = "asc"
	}
	paged, err := h.titlePage(r, &d)
	if err == nil && !paged {
		err = h.listPage(r, &d)
	}
	if err != nil {
		h.log.Error("web: list documents", "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The library could not be read; see the server log.")
		return
	}
	for i := range d.Docs {
		h.cite(r, &d.Docs[i])
	}
	h.describe(r.Context(), &d)
	if !sessionOf(r).person.IsZero() {
		d.Path = "" // where the file lives on the server is the owner's business
	}
	h.render(w, r, http.StatusOK, "library", "Library", d)
}

// titlePage fills d with one page of the whole library in title order,
// which the store reads alone (library.Library.TitlePage): the first view
// of a library's page after `serve` starts read every document record and
// sorted them all, 2-6 s at 25,000 documents. It reports false, leaving d
// as it was, when d filters or sorts otherwise or the library cannot page.
func (h *Handler) titlePage(r *http.Request, d *libraryData) (bool, error) {
	if d.Sort != "title" || d.Q != "" || d.Type != "" {
		return false, nil
	}
	lib := h.opts.Library.Current()
	read := func(page int) (store.RowPage, bool, error) {
		return lib.TitlePage(r.Context(), (page-1)*libraryPageSize, libraryPageSize, d.Dir == "desc")
	}
	asked := pageAsked(r)
	p, ok, err := read(asked)
	if err != nil || !ok {
		return ok, err
	}
	d.Documents, d.Passages, d.Pages, d.Bytes, d.Shown = p.Documents, p.Passages, p.Pages, p.Bytes, p.Documents
	d.setPage(r, h.opts.Base)
	if d.Page != asked { // beyond the last page: the last one
		if p, ok, err = read(d.Page); err != nil || !ok {
			return ok, err
		}
	}
	d.Types = sortTypes(p.Types)
	d.Docs = make([]docRow, len(p.Rows))
	for i := range p.Rows {
		d.Docs[i] = rowFrom(&p.Rows[i])
	}
	return true, nil
}

// listPage fills d from all of the library's rows (or, for a library
// that keeps none, its whole listing), filtered and sorted as d asks, kept
// per order in h.lists while the rows stay the same.
func (h *Handler) listPage(r *http.Request, d *libraryData) error {
	lib, ctx := h.opts.Library.Current(), r.Context()
	v, ok, err := lib.RowsVersion(ctx)
	if err != nil {
		return err
	}
	src := listSource{rows: ok, version: v}
	build := func() (*listing, listSource, error) {
		p, _, err := lib.Rows(ctx)
		return d.list(p.Rows), listSource{rows: true, version: p.Version}, err
	}
	if !ok {
		docs, err := lib.Listing(ctx)
		if err != nil {
			return err
		}
		src.docs = docs
		build = func() (*listing, listSource, error) {
			rows := make([]store.Row, len(docs))
			for i, doc := range docs {
				rows[i] = store.RowOf(doc)
			}
			return d.list(rows), src, nil
		}
	}
	l, err := h.lists.get(src, listKey{d.Q, d.Type, d.Sort, d.Dir}, build)
	if err != nil {
		return err
	}
	d.Docs, d.Types, d.Documents, d.Passages, d.Pages, d.Bytes = l.rows, l.types, l.documents, l.passages, l.pages, l.bytes
	d.Shown = len(d.Docs)
	d.paginate(r, h.opts.Base)
	return nil
}

// libraryPageSize is how many documents the library page lists at once (a
// variable for tests). Listed whole, the 250,000 documents of the 1M scale
// library made a 246 MB page, built in memory, in 15.6 s.
var libraryPageSize = 200

// paginate keeps the rows of the page r asks for (?page=N, from 1; out of
// range is the nearest page) and links the pages before and after it with
// the same filter and order, under base (Options.Base).
func (d *libraryData) paginate(r *http.Request, base string) {
	d.setPage(r, base)
	d.Docs = slices.Clone(d.Docs[d.From-1 : d.To]) // the rows are shared (listCache)
}

// pageAsked is the page r asks for (?page=N, from 1), at least 1.
func pageAsked(r *http.Request) int {
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	return max(p, 1)
}

// setPage sets the page shown of d.Shown rows (the one r asks for, or the
// nearest), its rows From-To, and the links to the pages around it.
func (d *libraryData) setPage(r *http.Request, base string) {
	d.PageCount = max(1, (d.Shown+libraryPageSize-1)/libraryPageSize)
	d.Page = min(pageAsked(r), d.PageCount)
	lo := (d.Page - 1) * libraryPageSize
	d.From, d.To = lo+1, min(lo+libraryPageSize, d.Shown)
	q := r.URL.Query()
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

// list filters rows by d's query and type and sorts them by its order,
// counting totals over all rows.
func (d *libraryData) list(rows []store.Row) *listing {
	l := &listing{}
	types := map[string]bool{}
	needle := strings.ToLower(strings.TrimSpace(d.Q))
	for i := range rows {
		r := &rows[i]
		l.documents++
		l.passages += r.Passages
		l.pages += r.Pages
		l.bytes += r.Size
		types[r.MediaType] = true
		if d.Type != "" && r.MediaType != d.Type {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(r.Title+" "+r.SourcePath+" "+r.ID), needle) {
			continue
		}
		l.rows = append(l.rows, rowFrom(r))
	}
	l.types = sortTypes(slices.Collect(maps.Keys(types)))
	slices.SortFunc(l.rows, func(a, b docRow) int {
		c := cmp.Or(sorts[d.Sort](a, b), cmp.Compare(a.ID, b.ID))
		if d.Dir == "desc" {
			return -c
		}
		return c
	})
	return l
}

// sortTypes sorts media types as the page names them.
func sortTypes(types []string) []string {
	slices.SortFunc(types, func(a, b string) int { return cmp.Or(cmp.Compare(kindOf(a), kindOf(b)), cmp.Compare(a, b)) })
	return types
}

func (h *Handler) row(r *http.Request, doc *store.Document) docRow {
	d := rowOf(doc)
	h.cite(r, &d)
	return d
}

// rowOf is doc's row with URL its own source URL, "" if it has none (see
// cite).
func rowOf(doc *store.Document) docRow {
	r := store.RowOf(doc)
	return rowFrom(&r)
}

// rowFrom is the table row of the store's row r (see rowOf).
func rowFrom(r *store.Row) docRow {
	src := r.SourcePath
	if src == "" {
		src = r.SourceURL
	}
	return docRow{ID: r.ID, Title: r.Title, Type: r.MediaType, Kind: kindOf(r.MediaType), Source: src, URL: r.SourceURL,
		Pages: r.Pages, Passages: r.Passages, Size: r.Size, Ingested: r.IngestedAt,
		titleKey: strings.ToLower(r.Title)}
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
