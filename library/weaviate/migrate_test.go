package weaviate_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

func vectorOf(t *testing.T, db *store.DB, seq uint64) (v []float32) {
	t.Helper()
	if err := db.View(func(tx *store.Tx) error { v = tx.Vector(seq); return nil }); err != nil {
		t.Fatal(err)
	}
	return v
}

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "lib.db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// testMigrate copies an embedded library to Weaviate (resuming after an
// interruption) and back, and compares what comes out with what went in.
func testMigrate(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	src := openDB(t)
	if err := src.SetEmbedder(testEmbedder); err != nil {
		t.Fatal(err)
	}
	if err := src.PutSetting("link-key", []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	for i, texts := range [][]string{{"one", "two"}, {"three"}, {"four", "five", "six"}} {
		f := testDoc(string(rune('a'+i)), "/lib/"+string(rune('a'+i))+".pdf", i, texts...)
		if _, err := src.PutDocument(f.d, f.chunks, f.vecs, []byte("orig")); err != nil {
			t.Fatal(err)
		}
	}
	b := mustOpen(t, c, 0, "Migrate", nil)
	opts := weaviate.CopyOptions{Settings: []string{"link-key", "secret-path"}}
	// An interrupted first run, one document at a time: stop after the
	// first document. The rest are then written together.
	cctx, cancel := context.WithCancel(ctx)
	opts.Progress = func(p weaviate.CopyProgress) { cancel() }
	opts.Group = 1
	if p, err := b.CopyFrom(cctx, src, opts); err == nil || p.Copied != 1 {
		t.Fatalf("interrupted copy = %+v, %v; want 1 copied and context.Canceled", p, err)
	}
	var last weaviate.CopyProgress
	opts.Progress = func(p weaviate.CopyProgress) { last = p }
	opts.Group = 0
	p, err := b.CopyFrom(ctx, src, opts)
	if want := (weaviate.CopyProgress{Total: 3, Copied: 2, Skipped: 1, Last: "c"}); err != nil || p != want || last != want {
		t.Fatalf("resumed copy = %+v (last progress %+v), %v; want %+v", p, last, err, want)
	}
	if v, err := b.Setting(ctx, "link-key"); err != nil || string(v) != "\x01\x02\x03" {
		t.Errorf("copied link key = %q, %v", v, err)
	}
	back := openDB(t)
	if p, err := b.CopyTo(ctx, back, weaviate.CopyOptions{Settings: opts.Settings}); err != nil || p.Copied != 3 {
		t.Fatalf("copy back = %+v, %v", p, err)
	}
	for _, id := range []string{"a", "b", "c"} {
		want, _ := src.Document(id)
		got, err := back.Document(id)
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("document %s after the round trip (-before +after): %v\n%s", id, err, diff)
		}
		wc, _ := src.Chunks(want.Chunks)
		gc, _ := back.Chunks(got.Chunks)
		if diff := cmp.Diff(wc, gc, cmpopts.IgnoreFields(store.Chunk{}, "Seq")); diff != "" {
			t.Errorf("passages of %s after the round trip:\n%s", id, diff)
		}
		for i := range wc {
			if wv, gv := vectorOf(t, src, wc[i].Seq), vectorOf(t, back, gc[i].Seq); !cmp.Equal(wv, gv) {
				t.Errorf("vector of %s after the round trip: %v, want %v", gc[i].ID(), gv, wv)
			}
		}
	}
	if err := back.Check(); err != nil {
		t.Errorf("Check after copying back: %v", err)
	}
}
