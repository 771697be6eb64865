package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// TestSearchRanksAgainWithoutQueueing: when repeated passages use up a
// lexical search's short list, Search ranks again with more candidates and
// marks that ranking Again. The embedded backend runs such a ranking while
// every turn of first rankings is taken (it waited for its first), but it
// waits for a turn of its own gate: second rankings stay bounded too.
func TestSearchRanksAgainWithoutQueueing(t *testing.T) {
	f := newFixture(t, library.Options{Concurrency: 1})
	for i := range 6 { // the same passage in six documents: results show it once
		f.Add(t, fmt.Sprintf("copy%d", i), fmt.Sprintf("copy%d.md", i), "text/markdown", "", "Harbour boats harbour nets harbour dawn.")
	}
	for i := range 3 {
		f.Add(t, fmt.Sprintf("other%d", i), fmt.Sprintf("other%d.md", i), "text/markdown", "", fmt.Sprintf("A harbour town %d with a long history of weaving.", i))
	}
	ctx := context.Background()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	release := embedded.HoldTurns(f.Lib)
	q := library.Query{Text: "harbour", Mode: library.Lexical, N: 5}
	if _, err := f.Lib.Backend().Candidates(cancelled, q); !errors.Is(err, context.Canceled) {
		t.Errorf("first ranking with every turn taken: %v, want it to wait and fail with the context", err)
	}
	q.Again = true
	if c, err := f.Lib.Backend().Candidates(cancelled, q); err != nil || len(c.Lexical) != 5 {
		t.Errorf("second ranking with every first turn taken: %d hits, %v; want 5 without waiting", len(c.Lexical), err)
	}
	releaseAgain := embedded.HoldAgainTurns(f.Lib)
	if _, err := f.Lib.Backend().Candidates(cancelled, q); !errors.Is(err, context.Canceled) {
		t.Errorf("second ranking with every turn of its gate taken too: %v, want it to wait and fail with the context", err)
	}
	releaseAgain()
	release()

	rec := &queryRecorder{Backend: f.Lib.Backend().(*embedded.Backend)}
	lib := library.New(rec, wordEmbedder, library.Options{Concurrency: 1})
	resp, err := lib.Search(ctx, "harbour", library.SearchOptions{K: 3, Mode: library.Lexical})
	if err != nil || len(resp.Results) != 3 {
		t.Fatalf("search: %+v, %v; want 3 results", resp, err)
	}
	qs := rec.queries()
	if len(qs) < 2 || qs[0].Again || qs[0].N != 5 {
		t.Fatalf("rankings %+v: want a first one of 5 (k+2) candidates, not marked Again, then more", qs)
	}
	for _, q := range qs[1:] {
		if !q.Again || q.N <= 5 {
			t.Errorf("later ranking %+v: want Again with more than 5 candidates", q)
		}
	}
}

// queryRecorder is the embedded backend, recording the queries it ranks.
type queryRecorder struct {
	*embedded.Backend
	mu sync.Mutex
	qs []library.Query
}

func (r *queryRecorder) Candidates(ctx context.Context, q library.Query) (library.Candidates, error) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
	return r.Backend.Candidates(ctx, q)
}

// queries lists the queries ranked so far.
func (r *queryRecorder) queries() []library.Query {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.qs)
}
