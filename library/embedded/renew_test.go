package embedded_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestRenewedPinKeepsTermsInPlace: during an ingest the BM25 index reads
// the segment it adopted in place, through a pin renewed every few
// document writes. A Save of records that adds dictionary terms rewrites
// bbolt's leaf holding the dictionary's last chunk and, beside it, the
// segment's first chunk of packed terms: that chunk moves, and its old
// pages are freed. Renewing the pin then let the writes that followed
// reuse those pages (vectors), under the index's feet: the first passages'
// terms read as floats, the next segment saved them so (with a good
// checksum), and searches of a million-passage library panicked in
// rescore. Searches must return what an index held in memory returns,
// before and after the library is opened again.
func TestRenewedPinKeepsTermsInPlace(t *testing.T) {
	defer embedded.SetAdopt(true, 100)()
	path := t.TempDir() + "/lib.db"
	lib, db, lex := openForIngest(t, path)
	be := lib.Backend().(*embedded.Backend)
	ref := lexical.New(lexical.DefaultConfig())
	seq := uint64(0)
	put := func(d int, words func(p int) string) {
		chunks := make([]store.Chunk, 40)
		vecs := make([][]float32, len(chunks))
		for i := range chunks {
			p := d*len(chunks) + i
			text := words(p)
			chunks[i] = store.Chunk{Text: text, End: len(text), PageStart: 1, PageEnd: 1}
			vecs[i] = make([]float32, 64)
			vecs[i][p%64] = 1
		}
		doc := &store.Document{ID: fmt.Sprintf("renew-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/renew/%d", d), MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
		res, err := be.Put(context.Background(), doc, chunks, vecs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range chunks {
			ref.Add(res.Added[i], c.Text)
			seq = max(seq, res.Added[i])
		}
	}
	common := func(p int) string {
		return fmt.Sprintf("Passage %d about harbour h%dx, lighthouse l%dy, quay q%dz and tide t%dw in the bay.", p, p, p%37, p%1009, p%97)
	}
	for d := range 60 {
		put(d, common)
	}
	if err := lib.Fold(context.Background()); err != nil { // a segment, adopted
		t.Fatal(err)
	}
	if len(lex.InPlaceBytes()) == 0 {
		t.Fatal("the index does not read its segment in place")
	}
	put(60, func(p int) string { return fmt.Sprintf("Novel words n%dv and m%dk, never seen before.", p, p) })
	if err := lib.Save(context.Background()); err != nil { // records and a dictionary chunk
		t.Fatal(err)
	}
	for d := 61; d < 400; d++ { // document writes renew the pin and reuse freed pages
		put(d, common)
	}
	var queries []string
	for p := 0; p < 2400; p += 37 {
		queries = append(queries, fmt.Sprintf("harbour h%dx lighthouse l%dy tide", p, p%37))
	}
	check := func(when string, lex *lexical.Index) {
		t.Helper()
		for _, q := range queries {
			if got, want := fmt.Sprint(lex.Search(q, 10)), fmt.Sprint(ref.Search(q, 10)); got != want {
				t.Fatalf("%s: %q = %s, want %s", when, q, got, want)
			}
		}
	}
	check("read in place", lex)
	if err := lib.Fold(context.Background()); err != nil { // a segment written from what the index reads
		t.Fatal(err)
	}
	check("after the next segment", lex)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, db, lex = openForIngest(t, path)
	defer db.Close()
	check("reopened", lex)
}
