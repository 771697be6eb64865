package embedded_test

import (
	"context"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestListingFollowsTheStoreGeneration: Library.Listing keeps the document
// list while nothing is written (the same slice comes back) and reads it
// again after a write the backend never applied, one committed to the
// store by another writer: the version it is kept by is the store's
// write generation, not only the writes this backend applied.
func TestListingFollowsTheStoreGeneration(t *testing.T) {
	f := newFixture(t, library.Options{})
	ctx := context.Background()
	f.Add(t, "a", "a.txt", "text/plain", "", "Tugboats nudge tankers into the harbour.")
	first, err := f.Lib.Listing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.Lib.Listing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(again), 1; got != want || &again[0] != &first[0] {
		t.Fatalf("second listing: %d documents, same list %v; want the kept list of %d", got, len(again) == 1 && &again[0] == &first[0], want)
	}
	text := "Ferries cross the strait at dawn."
	d := &store.Document{ID: "b", Title: "b.txt", SourcePath: "/docs/b", MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
	chunks := []store.Chunk{{Text: text, End: len(text), PageStart: 1, PageEnd: 1}}
	if _, err := f.DB.PutDocument(d, chunks, [][]float32{wordEmbedder.Vector(text)}, nil); err != nil {
		t.Fatal(err) // not applied to the library: as if another process wrote it
	}
	after, err := f.Lib.Listing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(after), 2; got != want {
		t.Fatalf("listing after a write to the store: %d documents, want %d", got, want)
	}
}
