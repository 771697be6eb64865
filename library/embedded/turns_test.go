package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// TestSearchesTakeTurns: with one turn, concurrent searches in every mode
// all complete and return what the same searches return one at a time.
func TestSearchesTakeTurns(t *testing.T) {
	f := newFixture(t, library.Options{Concurrency: 1})
	for i := range 12 {
		f.Add(t, fmt.Sprintf("doc%d", i), fmt.Sprintf("doc%d.md", i), "text/markdown", "",
			fmt.Sprintf("Harbour %d keeps boats and nets.", i), fmt.Sprintf("Cats %d sleep near the warm engines.", i))
	}
	ctx := context.Background()
	queries := []string{"boats in the harbour", "cats sleeping", "warm engines", "nets"}
	modes := []library.Mode{library.Lexical, library.Vector, library.Hybrid}
	want := map[string]*library.SearchResponse{}
	for _, q := range queries {
		for _, m := range modes {
			resp, err := f.Lib.Search(ctx, q, library.SearchOptions{Mode: m})
			if err != nil || len(resp.Results) == 0 {
				t.Fatalf("%s %q: %v, %v", m, q, resp, err)
			}
			want[string(m)+q] = resp
		}
	}
	var wg sync.WaitGroup
	for i := range 48 {
		q, m := queries[i%len(queries)], modes[i%len(modes)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := f.Lib.Search(ctx, q, library.SearchOptions{Mode: m})
			if err != nil || !reflect.DeepEqual(resp, want[string(m)+q]) {
				t.Errorf("%s %q concurrently: %v, %v; alone: %v", m, q, resp, err, want[string(m)+q])
			}
		}()
	}
	wg.Wait()
}

// TestSearchWaitsForTurnWithContext: a search whose context has ended while
// it waits for a turn fails with the context's error.
func TestSearchWaitsForTurnWithContext(t *testing.T) {
	f := newFixture(t, library.Options{Concurrency: 1})
	f.Add(t, "a", "a.md", "text/markdown", "", "Harbour boats.")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	hold := embedded.HoldTurns(f.Lib)
	defer hold()
	if _, err := f.Lib.Search(ctx, "harbour", library.SearchOptions{Mode: library.Lexical}); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("search with every turn taken and its context cancelled: %v", err)
	}
}
