package embedded_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// reopen opens the fixture's store again, as the next process would, and
// reports whether the indexes loaded as in step with the store (the debug
// log says synced=true).
func (f *fixture) reopen(t *testing.T) (*library.Library, bool) {
	t.Helper()
	var log bytes.Buffer
	opts := library.Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	lib, err := embedded.Open(context.Background(), f.DB, wordEmbedder, opts)
	if err != nil {
		t.Fatal(err)
	}
	return lib, strings.Contains(log.String(), "synced=true")
}

// wantFound checks that a search for query in each mode (default: lexical
// and vector) finds passage id first (or, with id "", that a lexical one
// finds nothing).
func wantFound(t *testing.T, lib *library.Library, query, id string, modes ...library.Mode) {
	t.Helper()
	if modes == nil {
		modes = []library.Mode{library.Lexical, library.Vector}
	}
	for _, mode := range modes {
		resp, err := lib.Search(context.Background(), query, library.SearchOptions{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case id == "" && mode == library.Lexical && len(resp.Results) != 0:
			t.Errorf("%s %q: found %s, want nothing", mode, query, resp.Results[0].ID)
		case id != "" && (len(resp.Results) == 0 || resp.Results[0].ID != id):
			t.Errorf("%s %q: %+v, want %s first", mode, query, resp.Results, id)
		}
	}
}

// putDirect writes a document to the store only, as a write whose indexing
// has not happened yet (or never will: a crash).
func (f *fixture) putDirect(t *testing.T, id, text string) store.PutResult {
	t.Helper()
	d := &store.Document{ID: id, Title: id, SourcePath: "/docs/" + id, Pages: 1, Text: text}
	c := store.Chunk{Text: text, End: len(text), PageStart: 1, PageEnd: 1}
	res, err := f.DB.PutDocument(d, []store.Chunk{c}, [][]float32{wordEmbedder.Vector(c.IndexText())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSavedIndexesLoadSynced: after a Save that follows every applied
// write, the next open trusts the persisted indexes (synced) and finds what
// was written; a write applied but not saved makes it reconcile instead.
func TestSavedIndexesLoadSynced(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "a", "a.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	f.Add(t, "b", "b.txt", "text/plain", "", "Plate tectonics moves continents slowly.")
	if _, err := f.Lib.Remove(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	lib, synced := f.reopen(t)
	if !synced {
		t.Fatal("open after a Save of every write did not load synced")
	}
	wantFound(t, lib, "tectonics continents", "b:0")
	wantFound(t, lib, "quarks gluons", "")
	f.Add(t, "c", "c.txt", "text/plain", "", "Volcanic basalt cools into columns.")
	lib, synced = f.reopen(t)
	if synced {
		t.Fatal("open after an unsaved write loaded synced")
	}
	wantFound(t, lib, "basalt columns", "c:0")
	if _, synced = f.reopen(t); !synced {
		t.Fatal("the reconciling open did not save its repair with the generation")
	}
}

// TestSaveBetweenStoreWriteAndApply: a Save that runs after a store write
// committed but before its passages reached the indexes (a concurrent Put,
// applied out of order, or a crash right after the commit) must not record
// that write as indexed: the next open reconciles and finds it.
func TestSaveBetweenStoreWriteAndApply(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "a", "a.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	f.putDirect(t, "b", "Plate tectonics moves continents slowly.")
	later := f.putDirect(t, "c", "Volcanic basalt cools into columns.")
	if err := f.Lib.Apply(context.Background(), later); err != nil { // c indexed, b not yet
		t.Fatal(err)
	}
	if _, err := f.DB.DeleteDocument("a"); err != nil { // not applied at all
		t.Fatal(err)
	}
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	lib, synced := f.reopen(t)
	if synced {
		t.Fatal("loaded synced although writes were never indexed")
	}
	wantFound(t, lib, "tectonics continents", "b:0")
	wantFound(t, lib, "basalt columns", "c:0")
	wantFound(t, lib, "quarks gluons", "")
}

// harbourPages is n passages, each with a word of its own (h<i>x): enough
// of them make the BM25 index save a segment.
func harbourPages(n int) []string {
	pages := make([]string, n)
	for i := range pages {
		pages[i] = fmt.Sprintf("Passage %d about harbour number h%dx and lighthouse l%dy.", i, i, i%37)
	}
	return pages
}

// TestSyncedLoadWithSegmentAndRecords: a synced open of an index saved as
// a segment with records and tombstones beside it (passages added and
// removed after the segment was written) holds exactly the stored
// passages.
func TestSyncedLoadWithSegmentAndRecords(t *testing.T) {
	f := newFixture(t, library.Options{})
	pages := harbourPages(1200)
	f.Add(t, "big", "big.txt", "text/plain", "", pages...)
	f.Add(t, "gone", "gone.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	if err := f.Lib.Save(context.Background()); err != nil { // a segment
		t.Fatal(err)
	}
	f.Add(t, "b", "b.txt", "text/plain", "", "Plate tectonics moves continents slowly.")
	if _, err := f.Lib.Remove(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	if err := f.Lib.Save(context.Background()); err != nil { // a record and a tombstone beside it
		t.Fatal(err)
	}
	lib, synced := f.reopen(t)
	if !synced {
		t.Fatal("not synced")
	}
	if st := lib.IndexStats(context.Background()); st.LexicalPassages != len(pages)+1 || st.VectorPassages != len(pages)+1 {
		t.Errorf("index sizes %+v, want %d passages", st, len(pages)+1)
	}
	wantFound(t, lib, "tectonics continents", "b:0", library.Lexical) // 64 hashed dimensions blur the vectors here
	wantFound(t, lib, "quarks gluons", "")
	resp, err := lib.Search(context.Background(), "h1111x", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != "big:1111" {
		t.Fatalf("search = %+v, %v", resp, err)
	}
}

// TestSummaryFromTotals: the summary read from the store's totals equals
// the one counted over every document.
func TestSummaryFromTotals(t *testing.T) {
	f := newFixture(t, library.Options{})
	for i := range 25 {
		f.Add(t, fmt.Sprintf("d%02d", i), fmt.Sprintf("Title %d", i), "text/plain", "", "one page", "two pages")
	}
	if _, err := f.Lib.Remove(context.Background(), "d03"); err != nil {
		t.Fatal(err)
	}
	got, err := f.Lib.Summary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Documents != 24 || got.Chunks != 48 || got.Pages != 48 || len(got.Titles) != 20 ||
		got.Titles[0] != "Title 0" || got.Titles[3] != "Title 4" {
		t.Errorf("summary %+v", got)
	}
}
