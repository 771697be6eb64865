package vector

import (
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// TestUnsavedTellsWhetherSaveWrites: Unsaved is true exactly when Save
// would change what kv holds (a new index, an added or deleted vector, a
// header that differs from the stored one), and false after a Save and
// after either Load of a saved graph, so that a caller may skip the Save.
func TestUnsavedTellsWhetherSaveWrites(t *testing.T) {
	d := clustered(400, 1, 16, 5, 9)
	src := newMapSource(d)
	cfg := persistCfg
	cfg.Source = src
	x := New(d.dim, cfg)
	kv := indextest.NewKV()
	indextest.WantSaveWrites(t, "a new, empty index", x, kv, kv, true)
	indextest.WantSaveWrites(t, "after its Save", x, kv, kv, false)
	for i := range 300 {
		if err := x.Add(uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	indextest.WantSaveWrites(t, "after adds", x, kv, kv, true)
	indextest.WantSaveWrites(t, "after their Save", x, kv, kv, false)
	for i := 300; i < 400; i++ {
		delete(src.vecs, uint64(i))
	}
	y, _ := mustLoadSums(t, kv, d.dim, src)
	indextest.WantSaveWrites(t, "loaded by LoadSums", y, kv, kv, false)
	z, _ := mustLoad(t, kv, d.dim, persistCfg, source(src.vecs))
	indextest.WantSaveWrites(t, "loaded by Load", z, kv, kv, false)
	y.Delete(7)
	delete(src.vecs, 7)
	indextest.WantSaveWrites(t, "after a delete", y, kv, kv, true)
	indextest.WantSaveWrites(t, "after its Save", y, kv, kv, false)
	other := persistCfg
	other.EfConstruction = 77 // not checked by Load, written in the header
	h, _ := mustLoad(t, kv, d.dim, other, source(src.vecs))
	indextest.WantSaveWrites(t, "loaded with another header", h, kv, kv, true)
}
