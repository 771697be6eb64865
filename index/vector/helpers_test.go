package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dataset is synthetic clustered data with exact ground truth.
type dataset struct {
	dim     int
	vecs    [][]float32
	queries [][]float32
}

// clustered draws n vectors and nq queries around nc Gaussian centres with
// uneven (Zipf-like) cluster sizes, from a fixed seed. Queries come from the
// same distribution but are not in the data.
func clustered(n, nq, dim, nc int, seed uint64) *dataset {
	r := rand.New(rand.NewPCG(seed, seed^0xabcdef))
	centres := make([][]float32, nc)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	weights := make([]float64, nc)
	var total float64
	for i := range weights {
		weights[i] = 1 / math.Sqrt(float64(i+1))
		total += weights[i]
	}
	pick := func() []float32 {
		u := r.Float64() * total
		c := 0
		for c < nc-1 && u > weights[c] {
			u -= weights[c]
			c++
		}
		spread := 0.35 + 0.3*float64(c%3)
		v := make([]float32, dim)
		for j := range v {
			v[j] = centres[c][j] + float32(r.NormFloat64()*spread)
		}
		return v
	}
	d := &dataset{dim: dim}
	for range n {
		d.vecs = append(d.vecs, pick())
	}
	for range nq {
		d.queries = append(d.queries, pick())
	}
	return d
}

// truth returns the exact top-k ids for every query using SearchExact.
func truth(tb testing.TB, x *Index, qs [][]float32, k int) [][]uint64 {
	tb.Helper()
	out := make([][]uint64, len(qs))
	for i, q := range qs {
		rs, err := x.SearchExact(q, k)
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range rs {
			out[i] = append(out[i], r.ID)
		}
	}
	return out
}

// recall is the mean fraction of the exact top-k found by got.
func recall(want [][]uint64, got [][]Result) float64 {
	hit, total := 0, 0
	for i := range want {
		set := make(map[uint64]bool, len(want[i]))
		for _, id := range want[i] {
			set[id] = true
		}
		for _, r := range got[i] {
			if set[r.ID] {
				hit++
			}
		}
		total += len(want[i])
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// mustBuild returns an index holding d.vecs under ids 0..n-1.
func mustBuild(tb testing.TB, d *dataset, cfg Config) *Index {
	tb.Helper()
	x := New(d.dim, cfg)
	for i, v := range d.vecs {
		if err := x.Add(uint64(i), v); err != nil {
			tb.Fatalf("add %d: %v", i, err)
		}
	}
	checkInvariants(tb, x)
	return x
}

// searchAll runs SearchEf for every query.
func searchAll(tb testing.TB, x *Index, qs [][]float32, k, ef int) [][]Result {
	tb.Helper()
	out := make([][]Result, len(qs))
	for i, q := range qs {
		rs, err := x.SearchEf(q, k, ef)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = rs
	}
	return out
}

// checkInvariants verifies the graph's structure: link targets are in range,
// not freed, not self, on a layer the target has, with no duplicates; the
// entry point is live and on the top layer; Len matches the live slots. A
// Scan index must have no graph at all.
func checkInvariants(tb testing.TB, x *Index) {
	tb.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	live := 0
	for s := uint32(0); int(s) < x.n; s++ {
		if x.state[s] == stateFree {
			continue
		}
		if x.state[s] == stateLive {
			live++
		}
		if x.cfg.Scan {
			continue // no graph: checked below
		}
		for l := 0; l <= int(x.levels[s]); l++ {
			seen := map[uint32]bool{}
			for _, nb := range x.neighbours(nil, s, l) {
				switch {
				case int(nb) >= x.n || x.state[nb] == stateFree:
					tb.Fatalf("slot %d layer %d links to free slot %d", s, l, nb)
				case nb == s:
					tb.Fatalf("slot %d links to itself", s)
				case int(x.levels[nb]) < l:
					tb.Fatalf("slot %d layer %d links to %d of level %d", s, l, nb, x.levels[nb])
				case seen[nb]:
					tb.Fatalf("slot %d layer %d has duplicate %d", s, l, nb)
				}
				seen[nb] = true
			}
		}
	}
	if live != x.live || live != len(x.byID) {
		tb.Fatalf("live slots %d, live count %d, ids %d", live, x.live, len(x.byID))
	}
	if x.cfg.Scan {
		if x.links0 != nil || x.upper != nil || x.levels != nil || x.ep >= 0 {
			tb.Fatalf("scan index keeps a graph: entry %d", x.ep)
		}
		return
	}
	if live > 0 && x.tombs == 0 {
		if x.ep < 0 || x.state[x.ep] != stateLive || int(x.levels[x.ep]) != x.maxLevel {
			tb.Fatalf("bad entry point %d (max level %d)", x.ep, x.maxLevel)
		}
	}
}
