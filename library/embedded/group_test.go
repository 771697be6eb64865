package embedded_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestGroupCommits: with GroupCommits, Put holds new documents: the store
// and the indexes have none of them until their group commits, the
// session's lookups (ingest's unchanged and duplicate checks) answer for
// them, a document that replaces another is stored at once after the
// group, in order, and Finish commits the rest in one transaction.
func TestGroupCommits(t *testing.T) {
	f := newFixture(t, library.Options{})
	ctx := context.Background()
	f.Add(t, "old", "old.txt", "text/plain", "", "An older note on lighthouses.") // at /docs/old
	// A local embedder's session keeps no embed cache, whose writes
	// would be commits of their own.
	w := f.Lib.BeginWrites(ctx, wordEmbedder, embed.Identity{Provider: embed.HashProvider}, 0, 0, 0)
	w.GroupCommits()
	put := func(id, path, text string) store.PutResult {
		t.Helper()
		d := &store.Document{ID: id, Title: id, SourcePath: path, MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
		chunks := []store.Chunk{{Text: text, End: len(text), PageStart: 1, PageEnd: 1}}
		res, err := w.Put(ctx, d, chunks, [][]float32{wordEmbedder.Vector(text)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	before := f.DB.WriteStats().Committed
	put("boats", "/docs/boats.txt", "Tugboats nudge tankers into the harbour.")
	put("ferry", "/docs/ferry.txt", "Ferries cross the strait at dawn.")
	if n := f.DB.WriteStats().Committed - before; n != 0 {
		t.Fatalf("%d commits for two held documents", n)
	}
	if _, err := f.DB.DocumentInfo("boats"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a held document is in the store: %v", err)
	}
	if d, err := w.DocumentByPath(ctx, "/docs/ferry.txt"); err != nil || d.ID != "ferry" {
		t.Fatalf("DocumentByPath of a held document = %+v, %v", d, err)
	}
	if d, err := w.DocumentInfo(ctx, "boats"); err != nil || d.SourcePath != "/docs/boats.txt" {
		t.Fatalf("DocumentInfo of a held document = %+v, %v", d, err)
	}
	if st := f.Lib.IndexStats(ctx); st.LexicalPassages != 1 {
		t.Fatalf("held documents indexed: %+v", st)
	}
	// A replacement commits the group first, then itself.
	res := put("old2", "/docs/old", "A newer note on lighthouses and their keepers.")
	if len(res.Removed) != 1 {
		t.Fatalf("the replacement removed %d passages, want 1", len(res.Removed))
	}
	if n := f.DB.WriteStats().Committed - before; n != 2 {
		t.Fatalf("%d commits after a replacement, want 2 (the group, then it)", n)
	}
	for _, id := range []string{"boats", "ferry", "old2"} {
		if _, err := f.DB.DocumentInfo(id); err != nil {
			t.Fatalf("%s after the replacement: %v", id, err)
		}
	}
	put("gulls", "/docs/gulls.txt", "Gulls follow the ferries for scraps.")
	put("tides", "/docs/tides.txt", "Tides turn twice a day.")
	if err := w.Finish(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := f.DB.WriteStats().Committed - before; n > 4 {
		t.Fatalf("%d commits in all, want the two held documents in one (and a save)", n)
	}
	if st := f.Lib.IndexStats(ctx); st.LexicalPassages != 5 || st.VectorPassages != 5 {
		t.Fatalf("index stats %+v, want 5 passages", st)
	}
	resp, err := f.Lib.Search(ctx, "gulls scraps", library.SearchOptions{K: 3, Mode: library.Lexical})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != "gulls:0" {
		t.Fatalf("search after Finish = %+v, %v", resp, err)
	}
	if err := f.DB.Check(); err != nil {
		t.Fatal(err)
	}
}
