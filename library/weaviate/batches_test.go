package weaviate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

// testRank checks, on testSearch's collection, that Rank ranks and scores
// as the full searches do with passages that carry no text, and that
// ChunksAndDocuments then reads the passages and their documents.
func testRank(t *testing.T, b *weaviate.Collection, lex, near []weaviate.Hit) {
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

// testPutDocuments writes several documents at once over earlier ones: a
// new version of one (fewer passages), another document at one's path, and
// a new one; the results and the collection are PutDocument's, one by one.
func testPutDocuments(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	b := mustOpen(t, c, 0, "PutMany", nil)
	put(t, b, testDoc("x", "/lib/x.pdf", 0, "alpha one", "beta two", "gamma three"), nil)
	put(t, b, testDoc("y", "/lib/y.pdf", 3, "delta four"), nil)
	w := func(f fixture) weaviate.DocumentWrite {
		return weaviate.DocumentWrite{Doc: f.d, Chunks: f.chunks, Vectors: f.vecs}
	}
	res, err := b.PutDocuments(ctx, []weaviate.DocumentWrite{
		w(testDoc("x", "/lib/x.pdf", 0, "epsilon five")),
		w(testDoc("z", "/lib/y.pdf", 4, "zeta six", "eta seven")),
		w(testDoc("n", "/lib/n.pdf", 6, "theta eight")),
	})
	if err != nil || len(res) != 3 {
		t.Fatalf("PutDocuments = %+v, %v", res, err)
	}
	for i, want := range []struct {
		replaced       []string
		removed, added int
	}{{[]string{"x"}, 3, 1}, {[]string{"y"}, 1, 2}, {nil, 0, 1}} {
		if r := res[i]; !cmp.Equal(r.Replaced, want.replaced) || len(r.Removed) != want.removed || len(r.Added) != want.added {
			t.Errorf("result %d = %+v; want replaced %v, %d removed, %d added", i, r, want.replaced, want.removed, want.added)
		}
	}
	for _, id := range []string{"x:1", "y:0"} {
		if _, err := b.Passage(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("passage %s after the batch: %v, want store.ErrNotFound", id, err)
		}
	}
	if st, err := b.Stats(ctx); err != nil || st.Documents != 3 || st.Chunks != 4 {
		t.Errorf("Stats = %+v, %v; want 3 documents, 4 passages", st, err)
	}
	if err := b.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
	dup := []weaviate.DocumentWrite{w(testDoc("d", "/lib/d1.pdf", 0, "one")), w(testDoc("d", "/lib/d2.pdf", 0, "two"))}
	if _, err := b.PutDocuments(ctx, dup); err == nil {
		t.Error("PutDocuments with one id twice: no error")
	}
}
