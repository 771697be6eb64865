package library_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpvec/mcpvec/library"
)

// TestSearchRanksAgainWithoutQueueing: when repeated passages use up a
// lexical search's short list, Search ranks again with more candidates and
// marks that ranking Again. The embedded backend runs such a ranking while
// every turn of first rankings is taken (it waited for its first), but it
// waits for a turn of its own gate: second rankings stay bounded too.
func TestSearchRanksAgainWithoutQueueing(t *testing.T) {
	f := newFixture(t, library.Options{Concurrency: 1})
	for i := range 6 { // the same passage in six documents: results show it once
		f.add(t, fmt.Sprintf("copy%d", i), fmt.Sprintf("copy%d.md", i), "text/markdown", "", "Harbour boats harbour nets harbour dawn.")
	}
	for i := range 3 {
		f.add(t, fmt.Sprintf("other%d", i), fmt.Sprintf("other%d.md", i), "text/markdown", "", fmt.Sprintf("A harbour town %d with a long history of weaving.", i))
	}
	ctx := context.Background()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	release := library.HoldTurns(f.lib)
	q := library.Query{Text: "harbour", Mode: library.Lexical, N: 5}
	if _, err := library.BackendCandidates(cancelled, f.lib, q); !errors.Is(err, context.Canceled) {
		t.Errorf("first ranking with every turn taken: %v, want it to wait and fail with the context", err)
	}
	q.Again = true
	if c, err := library.BackendCandidates(cancelled, f.lib, q); err != nil || len(c.Lexical) != 5 {
		t.Errorf("second ranking with every first turn taken: %d hits, %v; want 5 without waiting", len(c.Lexical), err)
	}
	releaseAgain := library.HoldAgainTurns(f.lib)
	if _, err := library.BackendCandidates(cancelled, f.lib, q); !errors.Is(err, context.Canceled) {
		t.Errorf("second ranking with every turn of its gate taken too: %v, want it to wait and fail with the context", err)
	}
	releaseAgain()
	release()

	queries := library.RecordQueries(f.lib)
	resp, err := f.lib.Search(ctx, "harbour", library.SearchOptions{K: 3, Mode: library.Lexical})
	if err != nil || len(resp.Results) != 3 {
		t.Fatalf("search: %+v, %v; want 3 results", resp, err)
	}
	qs := queries()
	if len(qs) < 2 || qs[0].Again || qs[0].N != 5 {
		t.Fatalf("rankings %+v: want a first one of 5 (k+2) candidates, not marked Again, then more", qs)
	}
	for _, q := range qs[1:] {
		if !q.Again || q.N <= 5 {
			t.Errorf("later ranking %+v: want Again with more than 5 candidates", q)
		}
	}
}
