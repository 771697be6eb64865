package library_test

import (
	"context"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestWritesPutIndexesWhatItIsHanded: the write door (Writes.Put, what
// ingest calls) has the embedded backend index the passages and vectors
// it was handed, replacing an earlier version, without reading back from
// the store what it has just written there; a write made to the store
// directly (Library.Apply) is still read back.
func TestWritesPutIndexesWhatItIsHanded(t *testing.T) {
	f := newFixture(t, library.Options{})
	readBacks := library.CountReadBacks()
	ctx := context.Background()
	w := f.lib.BeginWrites(ctx, wordEmbedder, store.EmbedderInfo{Provider: "test"}, 0, 0, 0)
	for i, text := range []string{"Tugboats nudge tankers into the harbour.", "Ferries cross the strait at dawn."} {
		d := &store.Document{ID: "boats", Title: "boats.txt", SourcePath: "/docs/boats.txt", MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
		chunks := []store.Chunk{{Text: text, End: len(text), PageStart: 1, PageEnd: 1}}
		res, err := w.Put(ctx, d, chunks, [][]float32{wordEmbedder.Vector(text)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(res.Removed), i; got != want {
			t.Fatalf("put %d removed %d passages, want %d", i, got, want)
		}
	}
	if n := readBacks(); n != 0 {
		t.Fatalf("Writes.Put read its passages back from the store %d times", n)
	}
	if got, err := w.DocumentByPath(ctx, "/docs/boats.txt"); err != nil || got.ID != "boats" {
		t.Fatalf("DocumentByPath = %+v, %v", got, err)
	}
	for _, mode := range []library.Mode{library.Lexical, library.Vector} {
		resp, err := f.lib.Search(ctx, "ferries strait", library.SearchOptions{K: 5, Mode: mode})
		if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != "boats:0" {
			t.Fatalf("%s search = %+v, %v", mode, resp, err)
		}
	}
	if st := f.lib.IndexStats(); st.LexicalPassages != 1 || st.VectorPassages != 1 {
		t.Fatalf("index stats %+v, want one passage in each", st)
	}
	if err := w.Finish(true); err != nil {
		t.Fatal(err)
	}
	readBacks = library.CountReadBacks()
	f.add(t, "direct", "direct.txt", "text/plain", "", "Written to the store, then applied.")
	if n := readBacks(); n == 0 {
		t.Fatal("a direct store write was indexed without reading it back: is the counter wired?")
	}
}
