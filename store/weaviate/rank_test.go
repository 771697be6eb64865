package weaviate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/weaviate"
)

// testRank checks, on testSearch's collection, that Rank ranks and scores
// as the full searches do with passages that carry no text, and that
// ChunksAndDocuments then reads the passages and their documents.
func testRank(t *testing.T, b *weaviate.Backend, lex, near []weaviate.Hit) {
	ctx := context.Background()
	hq := weaviate.HybridQuery{Text: "volcano eruption", Vector: axis(1), Limit: 5, Alpha: 0.5, Fusion: weaviate.FusionRanked}
	hy, err := b.Hybrid(ctx, hq)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    weaviate.HybridQuery
		full []weaviate.Hit
	}{
		{"lexical", weaviate.HybridQuery{Text: "purring kitten", Limit: 3}, lex},
		{"vector", weaviate.HybridQuery{Vector: axis(4), Limit: 2}, near},
		{"hybrid", hq, hy},
	} {
		got, err := b.Rank(ctx, c.q)
		if err != nil || !cmp.Equal(ids(got), ids(c.full)) {
			t.Errorf("Rank %s = %v, %v; want %v", c.name, ids(got), err, ids(c.full))
			continue
		}
		for i, h := range got {
			if h.Score != c.full[i].Score || h.Chunk.Text != "" || h.Chunk.Seq != c.full[i].Chunk.Seq {
				t.Errorf("Rank %s hit %d = %+v %+v; want score %v, seq %d and no text", c.name, i, h, h.Chunk, c.full[i].Score, c.full[i].Chunk.Seq)
			}
		}
	}
	if _, err := b.Rank(ctx, weaviate.HybridQuery{Text: " "}); !errors.Is(err, weaviate.ErrEmptyQuery) {
		t.Errorf("Rank without text or vector: %v, want ErrEmptyQuery", err)
	}
	seqs := []uint64{hy[1].Chunk.Seq, 12345, hy[0].Chunk.Seq}
	cs, docs, err := b.ChunksAndDocuments(ctx, seqs, []string{"b", "missing", "a"})
	if err != nil || len(cs) != 2 || !cmp.Equal(cs[0], hy[1].Chunk) || !cmp.Equal(cs[1], hy[0].Chunk) {
		t.Errorf("ChunksAndDocuments passages = %v, %v; want %v and %v", cs, err, hy[1].Chunk, hy[0].Chunk)
	}
	got := map[string]*store.Document{}
	for _, d := range docs {
		got[d.ID] = d
	}
	if len(docs) != 2 || got["a"] == nil || got["b"] == nil || got["a"].Text != "" || len(got["a"].Chunks) != 3 {
		t.Errorf("ChunksAndDocuments documents = %+v; want a (3 passages, no text) and b", docs)
	}
}
