package embedded_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
)

// TestSmallWritesKeepSegmentInPlace: a library whose BM25 index reads its
// segment in place keeps reading it there across a small ingest and a
// removal and their saves (records and a tombstone beside the segment),
// rather than copying the whole segment out of the map before the first
// write; searches find the new passage, not the removed one, and the
// segment's passages as before, and so does the next open.
func TestSmallWritesKeepSegmentInPlace(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lib.db")
	f := savedLibrary(t, path)
	f.Add(t, "gone", "gone.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	if err := f.Lib.Fold(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.DB.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, &store.Options{NoSync: true, MapRoom: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lib, err := embedded.Open(ctx, db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f = &fixture{&embeddedtest.Fixture{DB: db, Lib: lib}}
	lex := embedded.LexIndex(lib)
	want := lex.Search("h1111x lighthouse", 5)
	if len(lex.InPlaceBytes()) == 0 || len(want) == 0 {
		t.Fatalf("reopened: %d values read in place, %d results; want some of each", len(lex.InPlaceBytes()), len(want))
	}
	f.Add(t, "b", "b.txt", "text/plain", "", "Plate tectonics moves continents slowly.")
	if err := lib.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Remove(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if err := lib.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(lex.InPlaceBytes()); n == 0 {
		t.Fatal("a small ingest and a removal copied the segment out of the map")
	}
	for i, l := range []*library.Library{lib, reopened(t, f)} {
		if got := embedded.LexIndex(l).Search("h1111x lighthouse", 5); !slices.Equal(got, want) {
			t.Errorf("library %d: segment passages %v, want %v", i, got, want)
		}
		wantFound(t, l, "plate tectonics continents", "b:0", library.Lexical)
		wantFound(t, l, "quantum chromodynamics quarks", "", library.Lexical)
	}
}

// reopened opens f's file again, as the next command would.
func reopened(t *testing.T, f *fixture) *library.Library {
	t.Helper()
	lib, _ := f.reopen(t)
	return lib
}
