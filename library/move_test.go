package library_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

func TestMoveFollowsTheFileAndDropsADisplacedDocument(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Cats are strongly attached to their homes.")
	f.Add(t, "dogs", "dogs.pdf", "application/pdf", "", "Dogs are loyal companions.")
	mt := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := f.Lib.Move(context.Background(), "cats", "/docs/dogs", "https://example.org/new-cats.pdf", mt); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	resp, err := f.Lib.Search(ctx, "cats attached homes", library.SearchOptions{K: 1, Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].URL != "https://example.org/new-cats.pdf#page=1" {
		t.Fatalf("search after move = %+v, %v", resp, err)
	}
	if _, err := f.Lib.Fetch(ctx, "dogs", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("the displaced document is still fetchable: %v", err)
	}
	resp, _ = f.Lib.Search(ctx, "dogs loyal companions", library.SearchOptions{Mode: library.Lexical})
	for _, r := range resp.Results {
		if r.DocID == "dogs" {
			t.Fatalf("the displaced document is still indexed: %+v", r)
		}
	}
	if err := f.Lib.Move(ctx, "nope", "/x", "", mt); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	h, err := f.Lib.Check(ctx)
	if err != nil || !h.Consistent {
		t.Fatalf("check after move: %+v %v", h, err)
	}
}

// TestSearchSeesEveryWrite: the query path caches document records, yet a
// search after a write (here a move, which changes the record's URL) never
// answers with the record from before it, even with searches running
// while the writes happen.
func TestSearchSeesEveryWrite(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Cats are strongly attached to their homes.")
	ctx := context.Background()
	search := func() string {
		resp, err := f.Lib.Search(ctx, "cats attached homes", library.SearchOptions{K: 1, Mode: library.Lexical})
		if err != nil || len(resp.Results) != 1 {
			t.Errorf("search = %+v, %v", resp, err)
			return ""
		}
		return resp.Results[0].URL
	}
	search() // the record is cached now
	mt := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					search()
				}
			}
		})
	}
	for i := range 50 {
		url := fmt.Sprintf("https://example.org/cats-%d.pdf", i)
		if err := f.Lib.Move(ctx, "cats", fmt.Sprintf("/docs/cats-%d.pdf", i), url, mt); err != nil {
			t.Fatal(err)
		}
		if got := search(); got != url+"#page=1" {
			t.Fatalf("search after move %d cites %q, want %q", i, got, url+"#page=1")
		}
	}
	close(stop)
	wg.Wait()
}
