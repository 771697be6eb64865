package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
)

// TestSegmentReadInPlaceAcrossWrites: a library opened over a saved BM25
// segment reads it in place, in the file's pages. A write to the store
// first makes it copy them, so that what it finds does not change when the
// write frees and reuses those pages (the whole segment rewritten, twice);
// and Close does not wait for a library still reading in place.
func TestSegmentReadInPlaceAcrossWrites(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "lib.db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
		t.Fatal(err)
	}
	first, err := embedded.Open(context.Background(), db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{&embeddedtest.Fixture{DB: db, Lib: first}} // closed below, not on cleanup
	f.Add(t, "big", "big.txt", "text/plain", "", harbourPages(1200)...)
	if err := f.Lib.Save(context.Background()); err != nil { // a segment
		t.Fatal(err)
	}
	lib, _ := f.reopen(t)
	lex := embedded.LexIndex(lib)
	if len(lex.InPlaceBytes()) == 0 {
		t.Fatal("the reopened index reads nothing in place")
	}
	want := lex.Search("h1111x lighthouse", 5)
	if len(want) == 0 {
		t.Fatal("h1111x not found")
	}
	if err := lib.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if _, err := f.Lib.Remove(context.Background(), "big"); err != nil {
			t.Fatal(err)
		}
		pages := harbourPages(1200)
		for i := range pages {
			pages[i] = fmt.Sprintf("Round %d passage %d about quay q%dz.", round, i, i)
		}
		f.Add(t, "big", "big.txt", "text/plain", "", pages...)
		if err := f.Lib.Fold(context.Background()); err != nil { // a new segment in place of the old
			t.Fatal(err)
		}
		if n := len(lex.InPlaceBytes()); n != 0 {
			t.Fatalf("round %d: %d values still read in place after a write", round, n)
		}
		if got := lex.Search("h1111x lighthouse", 5); !slices.Equal(got, want) {
			t.Fatalf("round %d: after the writes %v, want %v", round, got, want)
		}
	}
	last, _ := f.reopen(t)
	if len(embedded.LexIndex(last).InPlaceBytes()) == 0 {
		t.Fatal("the last reopened index reads nothing in place")
	}
	if err := db.Check(); err != nil { // a read-write transaction that writes nothing: the pin stays
		t.Error(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for a library reading in place")
	}
	if n := embedded.LexIndex(last).Len(); n != 0 {
		t.Errorf("after Close the index still holds %d passages", n)
	}
}

// TestSegmentCutShortIsCorrupt: a library reading its BM25 segment in
// place whose file another process cuts short answers a search with an
// error matching store.ErrCorrupt, where the fault would otherwise kill the
// process.
func TestSegmentCutShortIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.db")
	f := savedLibrary(t, path)
	lib, _ := f.reopen(t)
	if len(embedded.LexIndex(lib).InPlaceBytes()) == 0 {
		t.Fatal("the reopened index reads nothing in place")
	}
	so := library.SearchOptions{Mode: library.Lexical}
	if resp, err := lib.Search(context.Background(), "h1111x lighthouse", so); err != nil || len(resp.Results) == 0 {
		t.Fatalf("before the cut: %v, %v", resp, err)
	}
	if err := os.Truncate(path, 8192); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Search(context.Background(), "h1111x lighthouse", so); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("after the cut: %v, want ErrCorrupt", err)
	}
}
