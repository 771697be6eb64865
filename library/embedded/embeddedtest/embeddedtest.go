// Package embeddedtest is the test kit of a Library over the embedded
// backend: a library file in a temporary directory with a deterministic
// embedder recorded, and documents written to it as an ingest writes them
// (the store first, then the indexes). For _test.go files only.
package embeddedtest

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/ingest/embed/embedtest"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// Words is the shared deterministic test embedder over stemmed lexical
// tokens, in 64 dimensions; Open records its identity.
var Words = embedtest.Words{Dims: 64, Tokenize: analysis.Tokenize}

// Fixture is a library file and the Library open over it. Tests may
// replace Lib (a reopened library) and embed it in fixtures of their own.
type Fixture struct {
	DB  *store.DB
	Lib *library.Library
}

// New opens a new library file in tb's temporary directory (closed with
// tb), records Words' identity and opens a Library over it with opts. It
// fails tb on any error.
func New(tb testing.TB, opts library.Options) *Fixture {
	tb.Helper()
	db := storetest.MustOpen(tb, nil)
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
		tb.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, Words, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return &Fixture{DB: db, Lib: lib}
}

// Add stores a document whose pages are given, one passage per page (Put
// without headings).
func (f *Fixture) Add(tb testing.TB, id, title, mediaType, url string, pages ...string) {
	tb.Helper()
	f.Put(tb, id, title, mediaType, url, nil, pages)
}

// Put stores a document with one passage per page, passage i under
// heads[i] (heads may be shorter: no headings), its vector Words' of its
// index text, and the original bytes "original bytes of "+id, in the
// store, and then applies the write to the Library's indexes. It fails tb
// on any error.
func (f *Fixture) Put(tb testing.TB, id, title, mediaType, url string, heads [][]string, pages []string) {
	tb.Helper()
	d := &store.Document{ID: id, Title: title, SourcePath: "/docs/" + id, SourceURL: url, MediaType: mediaType}
	f.PutDocument(tb, d, heads, pages)
}

// PutDocument is Put of a document record the caller fills (its source
// path, modification time, ...); its pages, page starts and text are set
// here from pages.
func (f *Fixture) PutDocument(tb testing.TB, d *store.Document, heads [][]string, pages []string) {
	tb.Helper()
	var starts []int
	off := 0
	for _, p := range pages {
		starts = append(starts, off)
		off += len(p) + 2
	}
	d.Pages, d.PageStarts, d.Text = len(pages), starts, strings.Join(pages, "\n\n")
	chunks := make([]store.Chunk, len(pages))
	vecs := make([][]float32, len(pages))
	for i, p := range pages {
		chunks[i] = store.Chunk{Text: p, Start: starts[i], End: starts[i] + len(p), PageStart: i + 1, PageEnd: i + 1}
		if i < len(heads) {
			chunks[i].Headings = heads[i]
		}
		vecs[i] = Words.Vector(chunks[i].IndexText())
	}
	res, err := f.DB.PutDocument(d, chunks, vecs, []byte("original bytes of "+d.ID))
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Lib.Apply(tb.Context(), res); err != nil {
		tb.Fatal(err)
	}
}

// CutLexicalSegment cuts every chunk of the BM25 segment saved in db to
// half its length, as a damaged file would hold it, and reports how many
// it cut (0: the library has no segment).
func CutLexicalSegment(t testing.TB, db *store.DB) int {
	t.Helper()
	cut := 0
	err := db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxLexical)
		if err != nil {
			return err
		}
		chunks := map[string][]byte{}
		err = kv.ForEach(func(k, v []byte) error {
			if strings.HasPrefix(string(k), "\x00lexical-segc") {
				chunks[string(k)] = append([]byte(nil), v[:len(v)/2]...)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for k, v := range chunks {
			if err := kv.Put([]byte(k), v); err != nil {
				return err
			}
			cut++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("cutting the BM25 segment short: %v", err)
	}
	return cut
}
