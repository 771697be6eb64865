package embedded

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// reindexFixture is a library of n one-passage documents written through
// Writes.Put with embedder identity "old".
func reindexFixture(t *testing.T, n int) (*store.DB, *library.Library) {
	t.Helper()
	db := openCacheDB(t, filepath.Join(t.TempDir(), "lib.db"))
	old := embed.Identity{Provider: "hash", Model: "old", Dimensions: cacheDims}
	if err := db.SetEmbedder(store.EmbedderInfo(old)); err != nil {
		t.Fatal(err)
	}
	lib, err := Open(context.Background(), db, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := lib.BeginWrites(context.Background(), &countingEmbedder{}, old, 0, 0, time.Hour)
	for i, p := range passages(n) {
		doc := &store.Document{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Title: p, SourcePath: "/" + p, Text: p, MediaType: "text/plain"}
		ch := []store.Chunk{{Text: p, Start: 0, End: len(p)}}
		if _, err := w.Put(context.Background(), doc, ch, [][]float32{fakeVec(p)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	return db, lib
}

func TestReindexResumesThroughTheEmbedCache(t *testing.T) {
	db, _ := reindexFixture(t, 50)
	target := embed.Identity{Provider: "fake", Model: "m1", Dimensions: cacheDims}
	bad := &countingEmbedder{failFrom: 3}
	opts := ReindexOptions{Batch: 10, Parallel: 1}
	if _, err := Reindex(context.Background(), db, bad, target, opts); err == nil {
		t.Fatal("a failing embedder reindexed")
	}
	if p, err := PendingReindex(db); err != nil || p == nil || !p.Same(target) {
		t.Fatalf("pending = %v, %v; want %s", p, err, target)
	}
	if m, _ := db.Meta(); m.Embedder.Model != "old" {
		t.Fatalf("a failed reindex switched the embedder to %s", m.Embedder)
	}
	var resumed int
	opts.Resumed = func(staged, total int) { resumed = staged }
	good := &countingEmbedder{}
	n, err := Reindex(context.Background(), db, good, target, opts)
	if err != nil || n != 50 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if resumed != 20 || len(good.answeredCounts()) != 30 {
		t.Fatalf("resumed %d and paid for %d passages, want 20 and 30", resumed, len(good.answeredCounts()))
	}
	if p, _ := PendingReindex(db); p != nil {
		t.Fatalf("pending after the switch: %v", p)
	}
	lib, err := Open(context.Background(), db, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := lib.Check(context.Background())
	if err != nil || !h.Consistent || h.Meta.Embedder.Model != "m1" || h.Index.VectorPassages != 50 {
		t.Fatalf("after reindex: %+v, %v", h, err)
	}
	if had, err := DiscardReindex(db); had || err != nil {
		t.Fatalf("DiscardReindex with nothing pending = %v, %v", had, err)
	}
}

func TestRemoveAndLive(t *testing.T) {
	_, lib := reindexFixture(t, 3)
	live := library.NewLive(lib)
	if n, err := live.Current().Remove(context.Background(), "aa"); err != nil || n != 1 {
		t.Fatalf("Remove = %d, %v", n, err)
	}
	if _, err := lib.Remove(context.Background(), "aa"); err == nil {
		t.Fatal("removing twice succeeded")
	}
	s, err := live.Summary(context.Background())
	if err != nil || s.Documents != 2 {
		t.Fatalf("Summary = %+v, %v", s, err)
	}
	if h, err := lib.Check(context.Background()); err != nil || !h.Consistent {
		t.Fatalf("Check after Remove = %+v, %v", h, err)
	}
}
