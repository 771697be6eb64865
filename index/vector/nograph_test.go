package vector

import (
	"reflect"
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

var scanCfg = Config{Seed: 5, ExactBelow: -1, Scan: true}

// countKeys counts kv's records of kind ('c' codes, 'n' nodes).
func countKeys(kv *indextest.KV, kind byte) int {
	n := 0
	for k := range kv.M {
		if len(k) == 9 && k[0] == kind {
			n++
		}
	}
	return n
}

// loadSumsCfg is LoadSums over src with cfg and src as the Source.
func loadSumsCfg(t *testing.T, kv index.KV, dim int, cfg Config, src *mapSource) (*Index, LoadStats) {
	t.Helper()
	cfg.Source = src
	x, st, err := LoadSums(kv, dim, cfg, sumsOf(src), src.Vectors)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	checkInvariants(t, x)
	return x, st
}

// searchEvery runs search for every query of d.
func searchEvery(t *testing.T, d *dataset, search func(q []float32, k int) ([]Result, error)) [][]Result {
	t.Helper()
	out := make([][]Result, len(d.queries))
	for i, q := range d.queries {
		rs, err := search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = rs
	}
	return out
}

// scanChurned is a Scan index over d's first 1500 vectors after deleting
// 300 of them (enough to free their slots) and replacing 100 by d's last
// 100 vectors (which reuse freed slots), with src holding what it holds.
func scanChurned(t *testing.T, d *dataset) (*Index, *mapSource) {
	t.Helper()
	src := &mapSource{vecs: map[uint64][]float32{}}
	cfg := scanCfg
	cfg.Source = src
	x := New(d.dim, cfg)
	add := func(id uint64, v []float32) {
		src.vecs[id] = v
		if err := x.Add(id, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1500 {
		add(uint64(i), d.vecs[i])
	}
	for i := range 300 {
		delete(src.vecs, uint64(i*5))
		if !x.Delete(uint64(i * 5)) {
			t.Fatalf("delete %d: absent", i*5)
		}
	}
	for i := range 100 {
		add(uint64(1+i*5), d.vecs[len(d.vecs)-1-i])
	}
	checkInvariants(t, x)
	if x.Len() != 1200 || x.n > 1500 {
		t.Fatalf("len %d over %d slots, want 1200 over at most 1500", x.Len(), x.n)
	}
	return x, src
}

// TestScanIndexKeepsNoGraph: a Scan index churned by deletes and
// replacements saves codes but no nodes, loads back without reading a
// vector, answers as before and, unchanged, saves nothing.
func TestScanIndexKeepsNoGraph(t *testing.T) {
	d := clustered(1700, 40, 24, 10, 41)
	x, src := scanChurned(t, d)
	before := searchEvery(t, d, x.Search)
	if ef := searchEvery(t, d, func(q []float32, k int) ([]Result, error) { return x.SearchEf(q, k, 50) }); !reflect.DeepEqual(ef, before) {
		t.Fatal("SearchEf on a Scan index differs from Search")
	}
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	if c, n := countKeys(kv, 'c'), countKeys(kv, 'n'); c != 1200 || n != 0 {
		t.Fatalf("saved %d codes and %d nodes, want 1200 and 0", c, n)
	}
	src.calls = 0
	y, st := loadSumsCfg(t, kv, d.dim, scanCfg, src)
	if want := (LoadStats{Vectors: 1200}); st != want || src.calls != 0 {
		t.Fatalf("load: %+v after %d reads, want %+v and none", st, src.calls, want)
	}
	if after := searchEvery(t, d, y.Search); !reflect.DeepEqual(after, before) {
		t.Fatal("search after load differs")
	}
	indextest.WantSaveWrites(t, "loaded unchanged", y, kv, kv, false)
	y.Delete(3)
	indextest.WantSaveWrites(t, "after a delete", y, kv, kv, true)
	if kv.Get(codeKey(3)) != nil {
		t.Fatal("deleted vector's codes still stored")
	}
}

// TestScanDropsStoredGraph: an index saved with a graph and opened with
// Scan reads no node, answers like a Scan index built afresh, and deletes
// the nodes on its next Save, after which it loads clean.
func TestScanDropsStoredGraph(t *testing.T) {
	d := clustered(2000, 40, 24, 10, 43)
	_, src, kv := sourceBuild(t, d, 2000)
	if countKeys(kv, 'n') != 2000 {
		t.Fatal("graph build saved no nodes")
	}
	y, st := loadSumsCfg(t, kv, d.dim, scanCfg, src)
	if want := (LoadStats{Vectors: 2000, Upgraded: true}); st != want {
		t.Fatalf("load: %+v, want %+v", st, want)
	}
	cfg := scanCfg
	cfg.Source = src
	fresh := mustBuild(t, d, cfg)
	if got, want := searchEvery(t, d, y.Search), searchEvery(t, d, fresh.Search); !reflect.DeepEqual(got, want) {
		t.Fatal("Scan open of a graph answers unlike a fresh Scan index")
	}
	indextest.WantSaveWrites(t, "first save", y, kv, kv, true)
	if c, n := countKeys(kv, 'c'), countKeys(kv, 'n'); c != 2000 || n != 0 {
		t.Fatalf("after save %d codes and %d nodes, want 2000 and 0", c, n)
	}
	z, st := loadSumsCfg(t, kv, d.dim, scanCfg, src)
	if want := (LoadStats{Vectors: 2000}); st != want {
		t.Fatalf("reload: %+v, want %+v", st, want)
	}
	indextest.WantSaveWrites(t, "reloaded", z, kv, kv, false)
}

// TestGraphFromScanSave: an index a Scan index saved, opened without Scan,
// inserts every vector into a new graph that finds the exact neighbours,
// and its next Save stores the nodes, after which it loads clean.
func TestGraphFromScanSave(t *testing.T) {
	d := clustered(2000, 100, 24, 10, 47)
	x, src := scanChurned(t, d)
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	y, st := loadSumsCfg(t, kv, d.dim, persistCfg, src)
	if want := (LoadStats{Vectors: 1200, Inserted: 1200}); st != want {
		t.Fatalf("load: %+v, want %+v", st, want)
	}
	if r := recall(truth(t, y, d.queries, 10), searchAll(t, y, d.queries, 10, 64)); r < 0.95 {
		t.Fatalf("recall@10 of the graph built on load %.3f, want >= 0.95", r)
	}
	indextest.WantSaveWrites(t, "first save", y, kv, kv, true)
	if n := countKeys(kv, 'n'); n != 1200 {
		t.Fatalf("saved %d nodes, want 1200", n)
	}
	if _, st := loadSumsCfg(t, kv, d.dim, persistCfg, src); st != (LoadStats{Vectors: 1200, Nodes: 1200}) {
		t.Fatalf("reload: %+v, want clean", st)
	}
}

// TestLoadScan: Load (float32 copies, no Source) of a Scan index finds its
// saved codes current, reads no graph, and reconciles a removed vector.
func TestLoadScan(t *testing.T) {
	d := clustered(1500, 40, 24, 10, 53)
	x := mustBuild(t, d, scanCfg)
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	src := sourceOf(d)
	y, st := mustLoad(t, kv, d.dim, scanCfg, src)
	if want := (LoadStats{Vectors: 1500}); st != want {
		t.Fatalf("load: %+v, want %+v", st, want)
	}
	if !reflect.DeepEqual(searchEvery(t, d, y.Search), searchEvery(t, d, x.Search)) {
		t.Fatal("search after Load differs")
	}
	indextest.WantSaveWrites(t, "loaded unchanged", y, kv, kv, false)
	delete(src, 7)
	z, st := mustLoad(t, kv, d.dim, scanCfg, src)
	if want := (LoadStats{Vectors: 1499, Removed: 1}); st != want {
		t.Fatalf("load without 7: %+v, want %+v", st, want)
	}
	indextest.WantSaveWrites(t, "vector removed", z, kv, kv, true)
	if kv.Get(codeKey(7)) != nil || countKeys(kv, 'c') != 1499 {
		t.Fatal("removed vector's codes still stored")
	}
}
