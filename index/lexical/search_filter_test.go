package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// idFilter allows the ids in set; few lists them when asked to.
type idFilter struct {
	set map[uint64]bool
	few []uint64
}

func (f *idFilter) Allow(id uint64) bool { return f.set[id] }
func (f *idFilter) Few() []uint64        { return f.few }

// TestFilteredMatchesExhaustive: on random corpora with deletions and
// replacements, SearchIn returns exactly the reference scorer's
// ranking with the refused passages taken out, at every selectivity and by
// every strategy (pruned, eager, finished in full, term at a time, split,
// and scoring the few allowed one by one).
func TestFilteredMatchesExhaustive(t *testing.T) {
	checkCleared(t)
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			vocab := 50 + rng.IntN(1500)
			z := rand.NewZipf(rng, 1.05+rng.Float64(), 1, uint64(vocab-1))
			word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
			ix := New(DefaultConfig())
			n := 500 + rng.IntN(2500)
			for range n {
				ws := make([]string, 1+rng.IntN(50))
				for j := range ws {
					ws[j] = word()
				}
				ix.Add(uint64(rng.IntN(n*2)), strings.Join(ws, " "))
				if rng.IntN(5) == 0 {
					ix.Delete(uint64(rng.IntN(n * 2)))
				}
			}
			for q := range 150 {
				ws := make([]string, 1+rng.IntN(6))
				for j := range ws {
					ws[j] = word()
				}
				query, k := strings.Join(ws, " "), 1+rng.IntN(80)
				keep := []float64{0.001, 0.01, 0.1, 0.5, 0.9}[q%5]
				f := &idFilter{set: map[uint64]bool{}}
				for id := range uint64(n * 2) {
					if rng.Float64() < keep {
						f.set[id] = true
						f.few = append(f.few, id)
					}
				}
				var want []Result
				for _, r := range ix.searchExhaustive(query, n*2) {
					if f.set[r.ID] && len(want) < k {
						want = append(want, r)
					}
				}
				few := f.few
				for _, from := range [][5]int{{1 << 30, 1 << 30, 0, 1, 0}, {1 << 30, 1 << 30, 1, 1, 0},
					{1 << 30, 1 << 30, 0, 0, 0}, {1 << 30, 1 << 30, 0, 1, 1}, {1, 1 << 30, 0, 1, 0}, {1, 1, 0, 1, 0}} {
					exhaustiveFrom, splitFrom, pruneEager, gatherPre, finishEager = from[0], from[1], from[2] == 1, from[3] == 1, from[4] == 1
					for _, listed := range []bool{false, true} {
						f.few = nil
						if listed {
							f.few = few
						}
						got := ix.SearchIn(query, k, f)
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("query %d %q k %d keep %v few %v strategy %v:\n got       %v\n reference %v", q, query, k, keep, listed, from, got, want)
						}
					}
				}
				exhaustiveFrom, splitFrom, pruneEager, gatherPre, finishEager = 50, 1<<15, false, true, false
			}
		})
	}
}
