package vector

import (
	"errors"
	"iter"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// sumsOf is what the store's checksum bucket yields for m's vectors.
func sumsOf(m *mapSource) iter.Seq2[uint64, uint32] {
	return func(yield func(uint64, uint32) bool) {
		for id, v := range indextest.Sorted(m.vecs) {
			if !yield(id, vecCRC(v)) {
				return
			}
		}
	}
}

func mustLoadSums(t *testing.T, kv index.KV, dim int, src *mapSource) (*Index, LoadStats) {
	t.Helper()
	return loadSumsCfg(t, kv, dim, persistCfg, src)
}

// mustSaveLoadsClean saves x into kv and checks that the next LoadSums
// over src finds a node for each of its vectors and reads none.
func mustSaveLoadsClean(t *testing.T, x *Index, kv index.KV, src *mapSource) {
	t.Helper()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	if _, st := mustLoadSums(t, kv, x.Dim(), src); st != (LoadStats{Vectors: len(src.vecs), Nodes: len(src.vecs)}) {
		t.Fatalf("load after save: %+v, want clean", st)
	}
}

func sourceBuild(t *testing.T, d *dataset, n int) (*Index, *mapSource, *indextest.KV) {
	t.Helper()
	src := newMapSource(d)
	cfg := persistCfg
	cfg.Source = src
	x, kv := savedPrefix(t, d, n, cfg)
	return x, src, kv
}

func TestLoadSumsRoundTrip(t *testing.T) {
	d := clustered(2000, 50, 24, 10, 31)
	x, src, kv := sourceBuild(t, d, 2000)
	src.calls = 0
	y, st := mustLoadSums(t, kv, d.dim, src)
	if want := (LoadStats{Vectors: 2000, Nodes: 2000}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if src.calls != 0 {
		t.Fatalf("a clean load read vectors %d times", src.calls)
	}
	checkCleanLoad(t, x, y, kv, d.queries)
}

func TestLoadSumsReconciles(t *testing.T) {
	d := clustered(2200, 50, 24, 10, 32)
	_, src, kv := sourceBuild(t, d, 2000)
	// Since the save: 200 added (2000..2199), 100 removed (0..99), id 500 changed.
	for i := uint64(0); i < 100; i++ {
		delete(src.vecs, i)
	}
	for i := 2000; i < 2200; i++ {
		src.vecs[uint64(i)] = d.vecs[i]
	}
	src.vecs[500] = d.vecs[2100]
	y, st := mustLoadSums(t, kv, d.dim, src)
	checkReconciled(t, y, d, st, LoadStats{Vectors: 2100, Nodes: 2000, Inserted: 201, Removed: 100, Read: 201})
	mustSaveLoadsClean(t, y, kv, src)
}

// A graph saved in format 1 (no codes) keeps its links: the vectors are
// read once, and the next Save writes format 2.
func TestLoadSumsUpgradesFormat1(t *testing.T) {
	d := clustered(1500, 30, 16, 8, 33)
	x, src, kv := sourceBuild(t, d, 1500)
	for k := range kv.M {
		if k[0] == 'c' {
			delete(kv.M, k)
		}
	}
	setHeaderVersion(kv, 1)
	if _, st := mustLoad(t, kv, d.dim, persistCfg, source(src.vecs)); st != (LoadStats{Vectors: 1500, Nodes: 1500, Upgraded: true}) {
		t.Fatalf("Load of format 1: %+v", st)
	}
	y, st := mustLoadSums(t, kv, d.dim, src)
	if want := (LoadStats{Vectors: 1500, Nodes: 1500, Upgraded: true, Read: 1500}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if !reflect.DeepEqual(searchAll(t, x, d.queries, 10, 40), searchAll(t, y, d.queries, 10, 40)) {
		t.Fatal("upgraded index answers differently from the saved one")
	}
	mustSaveLoadsClean(t, y, kv, src)
}

func TestLoadSumsDamage(t *testing.T) {
	d := clustered(1500, 30, 16, 8, 34)
	_, src, kv := sourceBuild(t, d, 1500)
	kv.M[string(codeKey(7))][9] ^= 0x10 // a damaged codes record: read that vector
	y, st := mustLoadSums(t, kv, d.dim, src)
	if st.Rebuilt || st.Read != 1 || st.Inserted != 0 || y.Len() != 1500 {
		t.Fatalf("damaged codes: %+v", st)
	}
	kv.M[string(nodeKey(8))][3] ^= 0x40 // a damaged node: rebuild
	y, st = mustLoadSums(t, kv, d.dim, src)
	if !st.Rebuilt || !errors.Is(st.Reason, ErrCorrupt) || st.Inserted != 1500 || y.Len() != 1500 {
		t.Fatalf("damaged node: %+v", st)
	}
	if r := recall(truth(t, y, d.queries, 10), searchAll(t, y, d.queries, 10, 64)); r < 0.9 {
		t.Fatalf("recall after rebuild %.3f", r)
	}
	if _, _, err := LoadSums(kv, d.dim, persistCfg, sumsOf(src), src.Vectors); err == nil {
		t.Fatal("LoadSums without a Source succeeded")
	}
	src.fail = errors.New("disk gone")
	cfg := persistCfg
	cfg.Source = src
	_, _, err := LoadSums(indextest.NewKV(), d.dim, cfg, sumsOf(src), src.Vectors)
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("load over a failing source: %v", err)
	}
}

// Ids far apart use the map instead of the dense table; same result.
func TestLoadSumsSparseIDs(t *testing.T) {
	d := clustered(1200, 20, 16, 8, 35)
	src := &mapSource{vecs: map[uint64][]float32{}}
	cfg := persistCfg
	cfg.Source = src
	x := New(d.dim, cfg)
	for i, v := range d.vecs {
		id := uint64(i) << 40
		src.vecs[id] = v
		if err := x.Add(id, v); err != nil {
			t.Fatal(err)
		}
	}
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	delete(src.vecs, 5<<40)
	y, st := mustLoadSums(t, kv, d.dim, src)
	if st.Removed != 1 || st.Nodes != 1200 || st.Read != 0 || y.Len() != 1199 {
		t.Fatalf("sparse ids: %+v", st)
	}
}
