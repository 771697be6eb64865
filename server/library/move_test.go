package library_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/library"
)

func TestMoveFollowsTheFileAndDropsADisplacedDocument(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.add(t, "cats", "cats.pdf", "application/pdf", "", "Cats are strongly attached to their homes.")
	f.add(t, "dogs", "dogs.pdf", "application/pdf", "", "Dogs are loyal companions.")
	mt := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := f.lib.Move("cats", "/docs/dogs", "https://example.org/new-cats.pdf", mt); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	resp, err := f.lib.Search(ctx, "cats attached homes", library.SearchOptions{K: 1, Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].URL != "https://example.org/new-cats.pdf#page=1" {
		t.Fatalf("search after move = %+v, %v", resp, err)
	}
	if _, err := f.lib.Fetch(ctx, "dogs", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("the displaced document is still fetchable: %v", err)
	}
	resp, _ = f.lib.Search(ctx, "dogs loyal companions", library.SearchOptions{Mode: library.Lexical})
	for _, r := range resp.Results {
		if r.DocID == "dogs" {
			t.Fatalf("the displaced document is still indexed: %+v", r)
		}
	}
	if err := f.lib.Move("nope", "/x", "", mt); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	h, err := f.lib.Check(ctx)
	if err != nil || !h.Consistent {
		t.Fatalf("check after move: %+v %v", h, err)
	}
}
