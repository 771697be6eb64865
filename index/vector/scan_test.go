package vector

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// uniform draws n vectors and nq queries with independent Gaussian
// components: in 64 dimensions every vector is at almost the same distance
// from a query, the case the scan is for.
func uniform(n, nq, dim int, seed uint64) *dataset {
	r := rand.New(rand.NewPCG(seed, seed+1))
	draw := func(m int) [][]float32 {
		out := make([][]float32, m)
		for i := range out {
			out[i] = make([]float32, dim)
			for j := range out[i] {
				out[i][j] = float32(r.NormFloat64())
			}
		}
		return out
	}
	return &dataset{dim: dim, vecs: draw(n), queries: draw(nq)}
}

// TestScanFindsNeighboursTheGraphMisses: on near-equidistant vectors, a
// Scan index answers Search by the int8 scan re-scored from the Source,
// with recall@10 near 1 where the graph at its default ef falls short, and
// never returns a deleted vector.
func TestScanFindsNeighboursTheGraphMisses(t *testing.T) {
	d := uniform(3000, 100, 64, 31)
	mem := mustBuild(t, d, Config{Seed: 3, ExactBelow: -1})
	want := truth(t, mem, d.queries, 10)
	graph := recall(want, searchAll(t, mem, d.queries, 10, mem.Config().EfSearch))
	lean := mustBuild(t, d, Config{Seed: 3, ExactBelow: -1, Source: newMapSource(d), Scan: true})
	var got [][]Result
	for _, q := range d.queries {
		got = append(got, searchSame(t, lean, q, lean.SearchScan))
	}
	scan := recall(want, got)
	t.Logf("recall@10: graph at ef %d %.4f, scan %.4f", mem.Config().EfSearch, graph, scan)
	if scan < 0.99 || scan <= graph {
		t.Fatalf("scan recall@10 %.4f (graph %.4f), want >= 0.99 and above the graph's", scan, graph)
	}
	gone := got[0][0].ID
	if !lean.Delete(gone) {
		t.Fatalf("delete %d", gone)
	}
	rs, err := lean.Search(d.queries[0], 10)
	if err != nil || len(rs) != 10 || slices.ContainsFunc(rs, func(r Result) bool { return r.ID == gone }) {
		t.Fatalf("after deleting %d: %v, %v", gone, rs, err)
	}
}

// TestScanWithoutSourceIsExact: with float32 copies in memory the scan is
// the exact scan.
func TestScanWithoutSourceIsExact(t *testing.T) {
	d := uniform(2000, 20, 32, 32)
	x := mustBuild(t, d, Config{Seed: 3, ExactBelow: -1, Scan: true})
	for _, q := range d.queries {
		searchSame(t, x, q, x.SearchExact)
	}
}

// searchSame returns x.Search(q, 10) after checking that other finds the
// same.
func searchSame(t *testing.T, x *Index, q []float32, other func([]float32, int) ([]Result, error)) []Result {
	t.Helper()
	got, err := x.Search(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := other(q, 10)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Search %v, the other %v (%v)", got, want, err)
	}
	return got
}

// TestScanSplitSameResults: a lone scan split across CPUs returns what the
// unsplit scan does.
func TestScanSplitSameResults(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: the scan is never split")
	}
	d := uniform(3000, 30, 32, 33)
	x := mustBuild(t, d, Config{Seed: 3, ExactBelow: -1, Source: newMapSource(d), Scan: true})
	var whole [][]Result
	for _, q := range d.queries {
		rs, err := x.SearchScan(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, rs)
	}
	defer func(v int) { scanSplitFrom = v }(scanSplitFrom)
	scanSplitFrom = 100
	for i, q := range d.queries {
		rs, err := x.SearchScan(q, 10)
		if err != nil || !slices.Equal(rs, whole[i]) {
			t.Fatalf("query %d: split %v, whole %v (%v)", i, rs, whole[i], err)
		}
	}
}
