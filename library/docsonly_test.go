package library_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// TestOpenDocumentsFetchesWithoutIndexes: a Library from OpenDocuments
// fetches documents and passages exactly as the whole library does, and a
// search, a count or a write says it has no index instead of answering
// wrongly.
func TestOpenDocumentsFetchesWithoutIndexes(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "https://example.org/cats.pdf",
		"Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.")
	f.Add(t, "mem", "valgrind.md", "text/markdown", "", "Run memcheck with --leak-check=full to list leaks.")
	docs := embedded.OpenDocuments(f.DB, library.Options{})
	ctx := context.Background()
	for _, id := range []string{"cats", "cats:1", "mem", "mem:0"} {
		want, err := f.Lib.Fetch(ctx, id, library.FetchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := docs.Fetch(ctx, id, library.FetchOptions{})
		if err != nil {
			t.Fatalf("fetch %s: %v", id, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fetch %s without indexes:\n%+v\nwith them:\n%+v", id, got, want)
		}
	}
	if _, err := docs.Fetch(ctx, "nope", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("fetch of an unknown id: %v, want ErrNotFound", err)
	}
	if _, err := docs.Search(ctx, "cats", library.SearchOptions{}); !errors.Is(err, library.ErrNoIndexes) {
		t.Fatalf("search: %v, want ErrNoIndexes", err)
	}
	if _, err := docs.Remove(ctx, "mem"); !errors.Is(err, library.ErrNoIndexes) {
		t.Fatalf("remove: %v, want ErrNoIndexes", err)
	}
	if _, err := f.DB.Document("mem"); err != nil {
		t.Fatalf("the refused remove touched the store: %v", err)
	}
	if _, err := docs.Check(ctx); !errors.Is(err, library.ErrNoIndexes) {
		t.Fatalf("check: %v, want ErrNoIndexes", err)
	}
}
