package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// setFilter allows the ids in set; few lists them when set.
type setFilter struct {
	set map[uint64]bool
	few []uint64
}

func (f *setFilter) Allow(id uint64) bool { return f.set[id] }
func (f *setFilter) Few() []uint64        { return f.few }

// filteredTruth is the exact k best among the allowed ids.
func filteredTruth(tb testing.TB, x *Index, q []float32, k int, f *setFilter) []uint64 {
	tb.Helper()
	all, err := x.SearchExact(q, x.Len())
	if err != nil {
		tb.Fatal(err)
	}
	var out []uint64
	for _, r := range all {
		if f.set[r.ID] && len(out) < k {
			out = append(out, r.ID)
		}
	}
	return out
}

// TestSearchFilteredKeepsK: a filtered search returns k allowed vectors
// whenever k are allowed, at every selectivity from 0.1% to 50%: exactly
// the exact scan's when the filter lists its ids or the index is scanned,
// and with the graph walk's recall otherwise.
func TestSearchFilteredKeepsK(t *testing.T) {
	const n, k = 6000, 10
	d := clustered(n, 30, 32, 20, 3)
	for _, cfg := range []Config{{M: 12, EfConstruction: 64, EfSearch: 32, Seed: 1}, {Scan: true, Seed: 1},
		{Scan: true, Seed: 1, Source: memSource(d.vecs)}, {M: 12, EfConstruction: 64, EfSearch: 32, Seed: 1, Source: memSource(d.vecs)}} {
		x := mustBuild(t, d, cfg)
		for _, keep := range []float64{0.001, 0.01, 0.1, 0.5} {
			t.Run(fmt.Sprintf("scan=%v/source=%v/keep=%v", cfg.Scan, cfg.Source != nil, keep), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(keep*1000), 5))
				f := &setFilter{set: map[uint64]bool{}}
				for id := range uint64(n) {
					if rng.Float64() < keep || len(f.set) < k && id >= n-k {
						f.set[id] = true
						f.few = append(f.few, id)
					}
				}
				few := f.few
				hit, total := 0, 0
				for _, listed := range []bool{true, false} {
					f.few = nil
					if listed {
						f.few = few
					}
					for _, q := range d.queries {
						want := filteredTruth(t, x, q, k, f)
						got, err := x.SearchFiltered(q, k, nil, f)
						if err != nil {
							t.Fatal(err)
						}
						if got, want := len(got), len(want); got != want {
							t.Fatalf("listed %v: %d results, want %d", listed, got, want)
						}
						set := map[uint64]bool{}
						for _, id := range want {
							set[id] = true
						}
						for i, r := range got {
							if !f.set[r.ID] {
								t.Fatalf("result %d is not allowed", r.ID)
							}
							if (listed || cfg.Scan && cfg.Source == nil) && r.ID != want[i] {
								t.Fatalf("listed %v: result %d is %d, want %d", listed, i, r.ID, want[i])
							}
							if set[r.ID] {
								hit++
							}
							total++
						}
					}
				}
				if r := float64(hit) / float64(total); r < 0.9 {
					t.Errorf("recall %.3f, want at least 0.9", r)
				}
			})
		}
	}
}
