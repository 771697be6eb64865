package vector

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// twoClusters builds a graph over two clusters of n vectors around
// opposite centres and cuts every link between them, so no walk crosses
// from one to the other. It returns the index and the ids of the cluster
// the entry point is not in, with their vectors.
func twoClusters(t *testing.T, n, dim int) (*Index, []uint64, map[uint64][]float32) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	x := New(dim, Config{ExactBelow: -1, Seed: 1})
	vecs := map[uint64][]float32{}
	for i := range 2 * n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = 0.3 * float32(r.NormFloat64())
		}
		v[0] += 3
		if i >= n {
			v[0] -= 6 // the second cluster: around -e0
		}
		if err := x.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
		vecs[uint64(i)] = v
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	side := func(s uint32) bool { return x.ids[s] >= uint64(n) }
	for s := uint32(0); int(s) < x.n; s++ {
		for l := 0; l <= int(x.levels[s]); l++ {
			kept := slices.DeleteFunc(x.neighbours(nil, s, l), func(nb uint32) bool { return side(nb) != side(s) })
			x.setList(s, l, kept)
		}
	}
	var far []uint64
	for s := uint32(0); int(s) < x.n; s++ {
		if side(s) != side(uint32(x.ep)) {
			far = append(far, x.ids[s])
		}
	}
	return x, far, vecs
}

// TestSearchSeededReachesCutOffCluster: the walk from the entry point
// cannot reach the cluster the query is in; one seed there finds the
// exact top 10.
func TestSearchSeededReachesCutOffCluster(t *testing.T) {
	x, far, vecs := twoClusters(t, 300, 16)
	q := slices.Clone(vecs[far[0]])
	q[1] += 0.5 // near the far cluster, not one of its vectors
	want, err := x.SearchExact(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range want {
		if !slices.Contains(far, r.ID) {
			t.Fatalf("exact result %d is not in the far cluster", r.ID)
		}
	}
	plain, err := x.SearchEf(q, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if r := recall([][]uint64{indextest.IDs(want)}, [][]Result{plain}); r != 0 {
		t.Fatalf("unseeded recall %.2f: the test graph is not cut in two", r)
	}
	seed := far[len(far)/2]
	got, err := x.SearchEfSeeded(q, 10, 64, []uint64{seed})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(indextest.IDs(got), indextest.IDs(want)) {
		t.Fatalf("seeded search %v, exact %v", got, want)
	}
}

// TestSearchSeededSkipsDeletedAndUnknown: seeds that name no live vector
// change nothing, and a deleted seed is never returned; a replaced seed
// starts from its new vector.
func TestSearchSeededSkipsDeletedAndUnknown(t *testing.T) {
	d := clustered(2000, 20, 24, 10, 3)
	x := mustBuild(t, d, Config{ExactBelow: -1, Seed: 1})
	for qi, q := range d.queries {
		exact, err := x.SearchExact(q, 3)
		if err != nil {
			t.Fatal(err)
		}
		gone := exact[0].ID
		x.Delete(gone)
		plain, err := x.SearchEf(q, 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		seeds := []uint64{gone, 1 << 60, gone, 5000 + uint64(qi)}
		got, err := x.SearchEfSeeded(q, 10, 32, seeds)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, plain) {
			t.Fatalf("query %d: seeds naming nothing live gave %v, unseeded %v", qi, got, plain)
		}
		if got, err = x.SearchEfSeeded(q, 10, 32, append(seeds, exact[1].ID, exact[2].ID)); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(indextest.IDs(got), gone) {
			t.Fatalf("query %d: deleted seed %d returned: %v", qi, gone, got)
		}
		if ids := indextest.IDs(got); !slices.Contains(ids, exact[1].ID) || !slices.Contains(ids, exact[2].ID) {
			t.Fatalf("query %d: seeds %d and %d, the best live vectors, missing from %v", qi, exact[1].ID, exact[2].ID, got)
		}
	}
	// A replaced seed starts from its new vector, which is the query itself.
	q := d.queries[0]
	if err := x.Add(7, q); err != nil {
		t.Fatal(err)
	}
	got, err := x.SearchEfSeeded(q, 1, 1, []uint64{7})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != 7 || got[0].Score < 0.999 {
		t.Fatalf("replaced seed: got %v, want id 7 with score 1", got)
	}
	checkInvariants(t, x)
}

// TestSearchSeededExactBelow: below Config.ExactBelow the exact scan
// answers, whatever the seeds.
func TestSearchSeededExactBelow(t *testing.T) {
	d := clustered(300, 5, 16, 4, 9)
	x := mustBuild(t, d, Config{Seed: 1})
	for _, q := range d.queries {
		want, err := x.SearchExact(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.SearchSeeded(q, 10, []uint64{1 << 60, 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seeded search %v, exact %v", got, want)
		}
	}
}
