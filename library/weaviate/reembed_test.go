package weaviate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

// lengthEmbedder gives 3-dimensional vectors (other dimensions than the
// source's 8) from a text's length, and counts the passages it embedded.
type lengthEmbedder struct{ embedded int }

func (e *lengthEmbedder) embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{1, float32(len(t)), 0.5}
		e.embedded++
	}
	return out, nil
}

// testReindex re-embeds a collection into a new one with vectors of other
// dimensions, interrupted after the first document and resumed.
func testReindex(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	src := mustOpen(t, c, 0, "ReindexOld", nil)
	for i, texts := range [][]string{{"one", "two"}, {"three"}, {"four", "five", "six"}} {
		put(t, src, testDoc(string(rune('a'+i)), "/lib/"+string(rune('a'+i))+".pdf", i, texts...), []byte("orig"))
	}
	if err := src.PutSetting(ctx, "link-key", []byte{7}); err != nil {
		t.Fatal(err)
	}
	dst, err := weaviate.OpenCollection(ctx, c.URL(0, "ReindexNew"), &weaviate.Options{APIKey: c.APIKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	emb := &lengthEmbedder{}
	r := weaviate.Reembed{Identity: store.EmbedderInfo{Provider: "test", Model: "length", Dimensions: 3}, Embed: emb.embed}
	cctx, cancel := context.WithCancel(ctx)
	opts := weaviate.CopyOptions{Settings: []string{"link-key"}, Progress: func(weaviate.CopyProgress) { cancel() }, Group: 1}
	if p, err := src.CopyInto(cctx, dst, r, opts); !errors.Is(err, context.Canceled) || p.Copied != 1 {
		t.Fatalf("interrupted reindex = %+v, %v; want 1 copied and context.Canceled", p, err)
	}
	opts.Progress, opts.Group = nil, 0
	p, err := src.CopyInto(ctx, dst, r, opts)
	if want := (weaviate.CopyProgress{Total: 3, Copied: 2, Skipped: 1, Last: "c"}); err != nil || p != want {
		t.Fatalf("resumed reindex = %+v, %v; want %+v", p, err, want)
	}
	if emb.embedded != 6 {
		t.Errorf("embedded %d passages over both runs, want 6 (each once)", emb.embedded)
	}
	if m, err := dst.Meta(ctx); err != nil || m.Embedder == nil || !m.Embedder.Same(r.Identity) {
		t.Errorf("new collection's embedder = %v, %v; want %s", m.Embedder, err, r.Identity)
	}
	if v, err := dst.Setting(ctx, "link-key"); err != nil || string(v) != "\x07" {
		t.Errorf("link key in the new collection = %q, %v", v, err)
	}
	hits, err := dst.Nearest(ctx, []float32{1, 5, 0.5}, 1) // len("three")
	if err != nil || len(hits) != 1 || hits[0].Chunk.Text != "three" {
		t.Errorf("nearest to the new vector of \"three\" = %v, %v", hits, err)
	}
	if m, err := src.Meta(ctx); err != nil || !m.Embedder.Same(testEmbedder) {
		t.Errorf("old collection's embedder after the reindex = %v, %v; want it untouched", m.Embedder, err)
	}
	if _, err := src.CopyInto(ctx, src, r, opts); err == nil || !strings.Contains(err.Error(), "same collection") {
		t.Errorf("reindex into itself: %v, want refused", err)
	}
}
