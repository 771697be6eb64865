package vector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/internal/cputime"
)

// BenchmarkSearchFiltered measures SearchFiltered at k 10 on a graph of
// clustered vectors (20k, or 100k with MCPVEC_BENCH_LARGE), the allowed
// ids listed (Filter.Few: one by one, exactly) or not (the filtered graph
// walk), at shares from 0.1% to 50%, next to the unfiltered search; it
// reports recall@10 against the exact filtered answer and process CPU per
// search. Where the listed way stops being cheaper is where a Filter
// should stop listing (library.FewPassages).
//
//	go test -run '^$' -bench SearchFiltered -benchtime 300x ./index/vector/
func BenchmarkSearchFiltered(b *testing.B) {
	n := 20000
	if os.Getenv("MCPVEC_BENCH_LARGE") != "" {
		n = 100000
	}
	d := clustered(n, 100, 64, 50, 11)
	x := mustBuild(b, d, Config{Seed: 1})
	for _, keep := range []float64{0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.5} {
		rng := rand.New(rand.NewPCG(uint64(keep*1e4), 1))
		f := &setFilter{set: map[uint64]bool{}}
		for id := range uint64(n) {
			if rng.Float64() < keep {
				f.set[id] = true
				f.few = append(f.few, id)
			}
		}
		few := f.few
		for _, listed := range []bool{true, false} {
			if keep == 0 && !listed {
				continue
			}
			name := fmt.Sprintf("n=%d/keep=%g%%/listed=%v", n, keep*100, listed)
			if keep == 0 {
				name = fmt.Sprintf("n=%d/unfiltered", n)
			}
			b.Run(name, func(b *testing.B) {
				f.few = nil
				if listed {
					f.few = few
				}
				hit, total := 0, 0
				for _, q := range d.queries {
					want := map[uint64]bool{}
					for _, id := range filteredTruthOf(b, x, q, 10, f, keep == 0) {
						want[id] = true
					}
					got := searchMaybeFiltered(b, x, q, f, keep == 0)
					for _, r := range got {
						if want[r.ID] {
							hit++
						}
					}
					total += len(want)
				}
				i, cpu := 0, cputime.Process()
				for b.Loop() {
					searchMaybeFiltered(b, x, d.queries[i%len(d.queries)], f, keep == 0)
					i++
				}
				b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N)/1e3, "cpu-us/op")
				b.ReportMetric(float64(hit)/float64(max(total, 1)), "recall@10")
			})
		}
	}
}

func searchMaybeFiltered(b *testing.B, x *Index, q []float32, f *setFilter, none bool) []Result {
	var rs []Result
	var err error
	if none {
		rs, err = x.Search(q, 10)
	} else {
		rs, err = x.SearchFiltered(q, 10, nil, f)
	}
	if err != nil {
		b.Fatal(err)
	}
	return rs
}

func filteredTruthOf(b *testing.B, x *Index, q []float32, k int, f *setFilter, none bool) []uint64 {
	if none {
		rs, err := x.SearchExact(q, k)
		if err != nil {
			b.Fatal(err)
		}
		var out []uint64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	return filteredTruth(b, x, q, k, f)
}
