package library_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/library"
)

// TestVectorSeedsDuringWrites: vector and hybrid searches whose graph walk
// BM25's candidates seed stay correct while the passages they would seed
// are removed and added again: a removed passage is never returned, and a
// passage added back is found. With 20 seeds BM25 searches for more than
// fusion takes (9: 3k). Run with -race.
func TestVectorSeedsDuringWrites(t *testing.T) {
	for _, seeds := range []int{5, 20} {
		t.Run(fmt.Sprint(seeds), func(t *testing.T) { testVectorSeedsDuringWrites(t, seeds) })
	}
}

func testVectorSeedsDuringWrites(t *testing.T, seeds int) {
	f := newFixture(t, library.Options{Candidates: 1, VectorSeeds: seeds, Index: vector.Config{ExactBelow: -1}})
	word := func(i int) string { return fmt.Sprintf("zq%c%c", 'a'+i/26, 'a'+i%26) }
	text := func(i int) string {
		return fmt.Sprintf("A passage about %s and %s, with common words shared by all.", word(i), word(100+i%7))
	}
	const n = 60
	for i := range n {
		f.Add(t, fmt.Sprintf("d%d", i), fmt.Sprintf("d%d.md", i), "text/markdown", "", text(i))
	}
	ctx := context.Background()
	search := func(mode library.Mode, i int) (*library.SearchResponse, error) {
		return f.Lib.Search(ctx, word(i)+" "+word(100+i%7), library.SearchOptions{K: 3, Mode: mode})
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer func() { close(stop); wg.Wait() }() // before the store closes
	for _, mode := range []library.Mode{library.Vector, library.Hybrid} {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := search(mode, i%n); err != nil {
					t.Errorf("%s search: %v", mode, err)
					return
				}
			}
		})
	}
	for i := range 20 {
		id := fmt.Sprintf("d%d", i)
		if _, err := f.Lib.Remove(ctx, id); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []library.Mode{library.Vector, library.Hybrid} {
			resp, err := search(mode, i)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range resp.Results {
				if r.DocID == id {
					t.Fatalf("%s search returned removed %s: %+v", mode, id, resp.Results)
				}
			}
		}
		f.Add(t, id, id+".md", "text/markdown", "", text(i))
		for _, mode := range []library.Mode{library.Vector, library.Hybrid} {
			resp, err := search(mode, i)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) == 0 || resp.Results[0].DocID != id {
				t.Fatalf("%s search after adding %s back: %+v", mode, id, resp.Results)
			}
		}
	}
}
