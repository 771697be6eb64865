package weaviate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/weaviate"
	"github.com/mcpvec/mcpvec/store/weaviate/weaviatetest"
)

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
