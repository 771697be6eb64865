package store_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// TestChunksOrderAndMissing: Chunks returns passages in the order asked,
// repeats included, and a sequence number with no passage (before the
// first, between two, after the last) is ErrNotFound.
func TestChunksOrderAndMissing(t *testing.T) {
	db := MustOpenDB(t)
	a, ca, va := testDoc("aaaa", "/a", "one", "two", "three")
	b, cb, vb := testDoc("bbbb", "/b", "four", "five")
	for _, p := range []struct {
		d  *store.Document
		c  []store.Chunk
		vs [][]float32
	}{{a, ca, va}, {b, cb, vb}} {
		if _, err := db.PutDocument(p.d, p.c, p.vs, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.RemoveDocument("aaaa"); err != nil {
		t.Fatal(err)
	}
	a, ca, va = testDoc("aaaa", "/a", "six")
	if _, err := db.PutDocument(a, ca, va, nil); err != nil {
		t.Fatal(err)
	}
	seqs := []uint64{a.Chunks[0], b.Chunks[1], b.Chunks[0], a.Chunks[0]}
	got, err := db.Chunks(seqs)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Text)
	}
	if want := []string{"six", "five", "four", "six"}; !slices.Equal(texts, want) {
		t.Fatalf("Chunks(%v) texts = %q, want %q", seqs, texts, want)
	}
	last := max(a.Chunks[0], b.Chunks[1])
	for _, s := range []uint64{0, b.Chunks[0] - 1, last + 1} {
		if _, err := db.Chunks([]uint64{b.Chunks[0], s}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Chunks with missing %d: %v, want ErrNotFound", s, err)
		}
	}
}
