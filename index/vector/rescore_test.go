package vector

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// mapSource serves vectors from memory, as the store would from bbolt.
type mapSource struct {
	vecs  map[uint64][]float32
	fail  error
	calls int
}

func (m *mapSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	m.calls++ // tests call Search from one goroutine
	if m.fail != nil {
		return m.fail
	}
	for i, id := range ids {
		if v, ok := m.vecs[id]; ok {
			fn(i, v)
		}
	}
	return nil
}

func newMapSource(d *dataset) *mapSource {
	m := &mapSource{vecs: make(map[uint64][]float32, len(d.vecs))}
	for i, v := range d.vecs {
		m.vecs[uint64(i)] = v
	}
	return m
}

// TestSourceKeepsNoFloats: with a Source the index holds only int8 codes,
// finds the same neighbours as with float32 copies, with the same scores,
// and keeps recall against the float32 brute force.
func TestSourceKeepsNoFloats(t *testing.T) {
	for _, m := range []Metric{Cosine, Dot} {
		t.Run(m.String(), func(t *testing.T) {
			d := clustered(3000, 200, 64, 30, 11)
			mem := mustBuild(t, d, Config{Metric: m, Seed: 3})
			src := newMapSource(d)
			lean := mustBuild(t, d, Config{Metric: m, Seed: 3, Source: src})
			if lean.vecs != nil {
				t.Fatal("index with a Source keeps float32 vectors")
			}
			want := truth(t, mem, d.queries, 10)
			got := searchAll(t, lean, d.queries, 10, lean.Config().EfSearch)
			if r := recall(want, got); r < 0.95 {
				t.Fatalf("recall@10 with a Source = %.4f, want >= 0.95", r)
			}
			same := searchAll(t, mem, d.queries, 10, mem.Config().EfSearch)
			for i := range got {
				for j := range min(len(got[i]), len(same[i])) {
					a, b := got[i][j], same[i][j]
					if a.ID == b.ID && math.Abs(float64(a.Score-b.Score)) > 1e-4*math.Max(1, math.Abs(float64(b.Score))) {
						t.Fatalf("query %d: score %v with a Source, %v without", i, a, b)
					}
				}
			}
			ex, err := lean.SearchExact(d.queries[0], 10)
			if err != nil || len(ex) != 10 || ex[0].ID != want[0][0] {
				t.Fatalf("SearchExact with a Source = %v, %v; want %d first", ex, err, want[0][0])
			}
		})
	}
}

func TestSourceErrorFailsSearch(t *testing.T) {
	d := clustered(100, 1, 16, 3, 2)
	src := newMapSource(d)
	x := mustBuild(t, d, Config{Source: src})
	src.fail = errors.New("disk on fire")
	if _, err := x.Search(d.queries[0], 5); !errors.Is(err, src.fail) {
		t.Fatalf("Search error = %v, want the source's", err)
	}
}

func TestLoadWithSource(t *testing.T) {
	d := clustered(500, 20, 32, 5, 4)
	src := newMapSource(d)
	x := mustBuild(t, d, Config{Source: src, ExactBelow: -1})
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	y, st, err := Load(kv, 32, Config{Source: src, ExactBelow: -1}, sourceOf(d).seq())
	if err != nil || st.Rebuilt || st.Inserted != 0 {
		t.Fatalf("Load: %+v %v", st, err)
	}
	if y.vecs != nil {
		t.Fatal("loaded index with a Source keeps float32 vectors")
	}
	a, b := searchAll(t, x, d.queries, 10, 64), searchAll(t, y, d.queries, 10, 64)
	if r := recall(truth(t, x, d.queries, 10), b); r < 0.95 || len(a) != len(b) {
		t.Fatalf("recall after Load = %.3f", r)
	}
}

// TestSourceExactMatchesFloat: the exact scan through a Source returns what
// the float32 scan returns (ids and scores), even on tight clusters where
// int8 rounding reorders neighbours.
func TestSourceExactMatchesFloat(t *testing.T) {
	for _, m := range []Metric{Cosine, Dot} {
		for _, dim := range []int{8, 96} {
			d := clustered(2000, 100, dim, 3, uint64(dim))
			full := mustBuild(t, d, Config{Metric: m, Seed: 3})
			src := newMapSource(d)
			lean := mustBuild(t, d, Config{Metric: m, Seed: 3, Source: src})
			for i, q := range d.queries {
				for _, k := range []int{1, 10, 40} {
					want, err := full.SearchExact(q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := lean.Search(q, k) // Len() < ExactBelow: the exact scan
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%v d=%d query %d k=%d:\n got %v\nwant %v", m, dim, i, k, got, want)
					}
				}
			}
		}
	}
}
