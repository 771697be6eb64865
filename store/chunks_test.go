package store_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
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

// TestViewChunks: ViewChunks lends the passages Chunks copies, in the
// order asked (headings included, none as nil), nil for a missing one,
// and stops when told.
func TestViewChunks(t *testing.T) {
	db := MustOpenDB(t)
	a, ca, va := testDoc("aaaa", "/a", "one", "two", "three")
	ca[0].Headings, ca[2].Headings = []string{"Intro", "Scope"}, []string{"End"}
	if _, err := db.PutDocument(a, ca, va, nil); err != nil {
		t.Fatal(err)
	}
	missing := max(a.Chunks[0], a.Chunks[1], a.Chunks[2]) + 1
	seqs := []uint64{a.Chunks[2], missing, a.Chunks[1], a.Chunks[0], a.Chunks[2]}
	var got []*store.Chunk
	err := db.ViewChunks(seqs, func(i int, c *store.Chunk) bool {
		if c == nil {
			got = append(got, nil)
			return true
		}
		cp := *c // the strings alias the file: copy them for after the call
		cp.DocID, cp.Text = strings.Clone(c.DocID), strings.Clone(c.Text)
		cp.Headings = nil
		for _, h := range c.Headings {
			cp.Headings = append(cp.Headings, strings.Clone(h))
		}
		got = append(got, &cp)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		if s == missing {
			if got[i] != nil {
				t.Errorf("ViewChunks: missing %d gave %+v", s, got[i])
			}
			continue
		}
		want, err := db.Chunks([]uint64{s})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want[0]) {
			t.Errorf("ViewChunks %d = %+v, Chunks says %+v", s, got[i], want[0])
		}
	}
	n := 0
	if err := db.ViewChunks(seqs, func(int, *store.Chunk) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Errorf("ViewChunks told to stop after 2 called fn %d times (%v)", n, err)
	}
}
