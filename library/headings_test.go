package library_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// addHeaded stores one passage per page, passage i under heads[i].
func (f *fixture) addHeaded(t *testing.T, id, title, mediaType string, heads [][]string, pages ...string) {
	t.Helper()
	f.Put(t, id, title, mediaType, "", heads, pages)
}

// TestHeadingsInTitlesAndIndex checks that a passage's heading path is in
// its search and fetch titles, and that its words find the passage in
// every mode although the passage's text does not contain them.
func TestHeadingsInTitlesAndIndex(t *testing.T) {
	f := newFixture(t, library.Options{})
	long := strings.Repeat("Very long chapter name ", 5)
	f.addHeaded(t, "vg", "valgrind_manual.pdf", "application/pdf",
		[][]string{nil, {"4 Memcheck", "4.2 Memcheck options"}, {long, "Cachegrind"}},
		"Introduction to the tool suite.", "Use --leak-check=full to list every block.", "Simulates the caches.")
	f.addHeaded(t, "guide", "Guide", "text/markdown", [][]string{{"Guide", "Install"}}, "Run make install as root.")
	ctx := context.Background()
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		resp, err := f.Lib.Search(ctx, "memcheck options", library.SearchOptions{K: 1, Mode: mode})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%s: %+v, %v", mode, resp, err)
		}
		if got, want := resp.Results[0].Title, "valgrind_manual.pdf — 4 Memcheck › 4.2 Memcheck options — p. 2"; got != want {
			t.Errorf("%s: title %q, want %q", mode, got, want)
		}
		if got := resp.Results[0].Text; got != "Use --leak-check=full to list every block." {
			t.Errorf("%s: snippet %q holds more than the passage", mode, got)
		}
	}
	titles := map[string]string{
		"vg:0":    "valgrind_manual.pdf — p. 1",
		"vg:2":    "valgrind_manual.pdf — Cachegrind — p. 3", // the outer heading would make it too long
		"guide:0": "Guide — Install",                         // the first heading repeats the title
	}
	for id, want := range titles {
		r, err := f.Lib.Fetch(ctx, id, library.FetchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Title != want {
			t.Errorf("fetch %s: title %q, want %q", id, r.Title, want)
		}
	}
}

// TestHeadingsIndexedAfterReopen reopens a library whose indexes were never
// saved: the lexical index rebuilt from the store holds the headings too.
func TestHeadingsIndexedAfterReopen(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.addHeaded(t, "vg", "valgrind_manual.pdf", "application/pdf", [][]string{{"Massif heap profiler"}}, "Measures memory over time.")
	lib, err := embedded.Open(context.Background(), f.DB, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := lib.Search(context.Background(), "massif", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].Title != "valgrind_manual.pdf — Massif heap profiler — p. 1" {
		t.Fatalf("after reopen: %+v, %v", resp, err)
	}
}
