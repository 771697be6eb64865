package vector

import (
	"slices"
	"testing"
)

// searchEf is the ef Search uses now for k results.
func (x *Index) searchEf(k int) int { return efFor(x.cfg.EfSearch, k, x.Len()) }

// TestEfFloorGrowsWithSize: the floor stays below the default EfSearch
// where ef 64 measured recall@10 0.99 (100k), reaches the ef measured for
// about 0.96 or better at 300k (100: 0.977) and 1M (256: 0.962), and never
// shrinks as the index grows.
func TestEfFloorGrowsWithSize(t *testing.T) {
	if f := efFloor(100_000); f >= defaultEfSearch {
		t.Fatalf("efFloor(100k) = %d, want below the default %d", f, defaultEfSearch)
	}
	for _, c := range []struct{ n, least int }{{300_000, 100}, {1_000_000, 256}} {
		if f := efFloor(c.n); f < c.least {
			t.Fatalf("efFloor(%d) = %d, want >= %d", c.n, f, c.least)
		}
	}
	prev := 0
	for n := 1; n <= 1<<26; n *= 2 {
		f := efFloor(n)
		if f < prev {
			t.Fatalf("efFloor(%d) = %d < efFloor(%d) = %d", n, f, n/2, prev)
		}
		prev = f
	}
}

// TestEfForRaisesOnly: the effective ef is the largest of EfSearch, k and
// the floor, so a larger EfSearch or k still wins.
func TestEfForRaisesOnly(t *testing.T) {
	cases := []struct{ efSearch, k, n, want int }{
		{64, 10, 10_000, 64},
		{64, 100, 10_000, 100},
		{64, 10, 1_000_000, efFloor(1_000_000)},
		{64, 100, 1_000_000, efFloor(1_000_000)},
		{500, 10, 1_000_000, 500},
		{64, 1000, 1_000_000, 1000},
	}
	for _, c := range cases {
		if got := efFor(c.efSearch, c.k, c.n); got != c.want {
			t.Errorf("efFor(%d, %d, %d) = %d, want %d", c.efSearch, c.k, c.n, got, c.want)
		}
	}
}

// TestSearchSmallIndexKeepsEf: on a small graph Search returns what it did
// before the floor, the graph search at max(EfSearch, k).
func TestSearchSmallIndexKeepsEf(t *testing.T) {
	d := clustered(4000, 50, 24, 20, 9)
	x := mustBuild(t, d, Config{Seed: 2, ExactBelow: -1})
	for _, k := range []int{10, 100} {
		if got := x.searchEf(k); got != max(defaultEfSearch, k) {
			t.Fatalf("searchEf(%d) = %d at %d vectors, want %d", k, got, x.Len(), max(defaultEfSearch, k))
		}
		for _, q := range d.queries {
			got, err := x.Search(q, k)
			if err != nil {
				t.Fatal(err)
			}
			want, err := x.SearchEf(q, k, max(defaultEfSearch, k))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("k %d: Search differs from SearchEf at ef %d", k, max(defaultEfSearch, k))
			}
		}
	}
}

// idsSource serves vectors from memory and records how many ids the last
// call asked for: a search re-scores min(ef, 3·k) candidates.
type idsSource struct {
	vecs [][]float32
	last int
}

func (s *idsSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	s.last = len(ids) // tests search from one goroutine
	for i, id := range ids {
		fn(i, s.vecs[id])
	}
	return nil
}

// TestSearchEfFollowsLen: Search's ef follows Len. With k 100 a search
// re-scores min(ef, 300) candidates: 100 at 4000 vectors, and
// efFloor(1M) once Len reports a million (the count is faked; the graph
// is the small one).
func TestSearchEfFollowsLen(t *testing.T) {
	d := clustered(4000, 5, 24, 20, 9)
	src := &idsSource{vecs: d.vecs}
	x := mustBuild(t, d, Config{Seed: 2, ExactBelow: -1, Source: src})
	rescored := func() int {
		if _, err := x.Search(d.queries[0], 100); err != nil {
			t.Fatal(err)
		}
		return src.last
	}
	if got := rescored(); got != 100 {
		t.Fatalf("at %d vectors Search(q, 100) re-scored %d, want 100", x.Len(), got)
	}
	x.allocMu.Lock()
	live := x.live
	x.live = 1_000_000
	x.allocMu.Unlock()
	defer func() { x.allocMu.Lock(); x.live = live; x.allocMu.Unlock() }()
	if got, want := rescored(), efFloor(1_000_000); got != want {
		t.Fatalf("at Len 1M Search(q, 100) re-scored %d, want efFloor = %d", got, want)
	}
}
