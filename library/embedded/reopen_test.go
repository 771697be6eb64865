package embedded_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// savedThenAdded is a library holding document a, saved, and document b,
// written to the store and the in-memory indexes but not saved.
func savedThenAdded(t *testing.T) *fixture {
	f := newFixture(t, library.Options{})
	f.Add(t, "a", "a.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Add(t, "b", "b.txt", "text/plain", "", "Plate tectonics moves continents slowly.")
	return f
}

// reopenExpecting opens f's store again and checks that each index holds passages.
func reopenExpecting(t *testing.T, f *fixture, passages int) *library.Library {
	lib, err := embedded.Open(context.Background(), f.DB, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := lib.IndexStats(context.Background()); st.LexicalPassages != passages || st.VectorPassages != passages {
		t.Fatalf("after reopen: %+v, want %d passages in each index", st, passages)
	}
	return lib
}

func TestReopenReconcilesUnsavedWrites(t *testing.T) {
	// b and the deletion of a reach the store but no Save (a crash).
	f := savedThenAdded(t)
	removed, err := f.DB.DeleteDocument("a")
	if err != nil || len(removed) != 1 {
		t.Fatal(err)
	}
	lib := reopenExpecting(t, f, 1)
	for _, mode := range []library.Mode{library.Lexical, library.Vector} {
		resp, err := lib.Search(context.Background(), "tectonics continents", library.SearchOptions{Mode: mode})
		if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != "b:0" {
			t.Fatalf("%s after reopen: %+v %v", mode, resp, err)
		}
		resp, _ = lib.Search(context.Background(), "quarks gluons", library.SearchOptions{Mode: library.Lexical})
		if len(resp.Results) != 0 {
			t.Fatalf("deleted passage found: %+v", resp.Results)
		}
	}
}

// TestFailedSaveIsNotTakenAsInStep: a Save whose commit fails after the
// BM25 index handed over its changes must not let a later Save record the
// indexes as in step with the store, or the next open would load BM25
// without the passages the failed Save held.
func TestFailedSaveIsNotTakenAsInStep(t *testing.T) {
	f := savedThenAdded(t)
	full := errors.New("no space left on device")
	restore := embedded.FailIndexSaves(full)
	if err := f.Lib.Save(context.Background()); !errors.Is(err, full) {
		t.Fatalf("Save with a failing commit: %v, want %v", err, full)
	}
	restore()
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	lib := reopenExpecting(t, f, 2)
	resp, err := lib.Search(context.Background(), "tectonics continents", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != "b:0" {
		t.Fatalf("lexical search after reopen: %+v %v", resp, err)
	}
}
