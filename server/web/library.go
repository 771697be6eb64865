package web

import (
	"cmp"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// docRow is one line of the library table.
type docRow struct {
	ID, Title, Type, Source, URL string
	Pages, Passages              int
	Size                         int64
	Ingested                     time.Time
}

type libraryData struct {
	Docs                      []docRow
	Q, Type, Sort, Dir        string
	Types                     []string
	Documents, Passages       int
	Pages                     int
	Bytes                     int64
	Shown                     int
	Embedder, Path, FileSize  string
	Vectors, Lexical, Version string
	CanWrite                  bool
}

var sorts = map[string]func(a, b docRow) int{
	"title":    func(a, b docRow) int { return cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)) },
	"type":     func(a, b docRow) int { return cmp.Compare(a.Type, b.Type) },
	"pages":    func(a, b docRow) int { return cmp.Compare(a.Pages, b.Pages) },
	"passages": func(a, b docRow) int { return cmp.Compare(a.Passages, b.Passages) },
	"size":     func(a, b docRow) int { return cmp.Compare(a.Size, b.Size) },
	"ingested": func(a, b docRow) int { return a.Ingested.Compare(b.Ingested) },
}

func (h *Handler) libraryPage(w http.ResponseWriter, r *http.Request) {
	docs, err := h.opts.Library.Current().Documents()
	if err != nil {
		h.log.Error("web: list documents", "err", err)
		h.message(w, r, http.StatusInternalServerError, "Library error", "The library could not be read; see the server log.")
		return
	}
	q := r.URL.Query()
	d := libraryData{Q: q.Get("q"), Type: q.Get("type"), Sort: q.Get("sort"), Dir: q.Get("dir"), CanWrite: h.opts.Ingest != nil}
	if sorts[d.Sort] == nil {
		d.Sort = "title"
	}
	if d.Dir != "desc" {
		d.Dir = "asc"
	}
	d.Docs, d.Types = h.rows(r, docs, &d)
	slices.SortStableFunc(d.Docs, func(a, b docRow) int {
		if d.Dir == "desc" {
			return sorts[d.Sort](b, a)
		}
		return sorts[d.Sort](a, b)
	})
	d.Shown = len(d.Docs)
	h.describe(&d)
	h.render(w, r, http.StatusOK, "library", "Library", d)
}

// rows filters docs by the query and type, counting totals over all docs.
func (h *Handler) rows(r *http.Request, docs []*store.Document, d *libraryData) ([]docRow, []string) {
	var out []docRow
	types := map[string]bool{}
	needle := strings.ToLower(strings.TrimSpace(d.Q))
	for _, doc := range docs {
		d.Documents++
		d.Passages += len(doc.Chunks)
		d.Pages += doc.Pages
		d.Bytes += doc.Size
		types[doc.MediaType] = true
		if d.Type != "" && doc.MediaType != d.Type {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(doc.Title+" "+doc.SourcePath+" "+doc.ID), needle) {
			continue
		}
		out = append(out, h.row(r, doc))
	}
	list := make([]string, 0, len(types))
	for t := range types {
		list = append(list, t)
	}
	slices.Sort(list)
	return out, list
}

func (h *Handler) row(r *http.Request, doc *store.Document) docRow {
	url := doc.SourceURL
	if url == "" {
		url = h.opts.Link(r, doc.ID, 0, "")
	}
	src := doc.SourcePath
	if src == "" {
		src = doc.SourceURL
	}
	return docRow{ID: doc.ID, Title: doc.Title, Type: doc.MediaType, Source: src, URL: url,
		Pages: doc.Pages, Passages: len(doc.Chunks), Size: doc.Size, Ingested: doc.IngestedAt}
}

// describe fills what `mcpvec info` knows: embedder, index sizes, file.
func (h *Handler) describe(d *libraryData) {
	st := h.opts.Library.Current().LoadedIndexStats()
	d.Embedder, d.Version = h.opts.Embedder, h.opts.Version
	d.Vectors = formatCount(st.VectorPassages) + " passages in the vector index"
	if st.VectorsDeferred {
		d.Vectors = "vector index not loaded (the first hybrid or vector search loads it)"
	}
	d.Lexical = formatCount(st.LexicalPassages) + " passages in the lexical index"
	d.Path = h.opts.LibraryPath
	if fi, err := os.Stat(h.opts.LibraryPath); err == nil {
		d.FileSize = store.FormatSize(fi.Size())
	}
	if d.Path != "" {
		d.Path = filepath.Clean(d.Path)
	}
}
