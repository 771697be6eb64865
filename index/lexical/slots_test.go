package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSegOnceMatchesExhaustive: queries of a few rare words and several
// common ones (each in a quarter to a half of the passages, so that their
// segments are large and mostly touched once) make bestPartial leave
// segments to the events. Search must return exactly the reference
// scorer's ids and scores, compressed or flat, stopping lazily or after
// every list; the test fails if no segment was skipped. Recording only the
// events above twice a list's bound, or skipping the events, makes it fail.
func TestSegOnceMatchesExhaustive(t *testing.T) {
	skips := 0
	onSegSkip = func() { skips++ }
	defer func() { onSegSkip, pruneEager, flatFrom = nil, false, 1024 }()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 17))
		ix := New(Config{K1: 0.8 + 2*rng.Float64(), B: 0.3 + 0.7*rng.Float64()})
		common := []string{"ca", "cb", "cc", "cd", "ce", "cf"}
		rare := func() string { return fmt.Sprintf("r%d", rng.IntN(200)) }
		n := 3000 + rng.IntN(2000)
		for range n {
			var ws []string
			for i, c := range common {
				if rng.IntN(2+i/2) == 0 {
					for range 1 + rng.IntN(3) {
						ws = append(ws, c)
					}
				}
			}
			for range 1 + rng.IntN(20) {
				ws = append(ws, rare())
			}
			ix.Add(uint64(rng.IntN(n*2)), strings.Join(ws, " "))
		}
		for q := range 150 {
			ws := []string{rare()}
			for range rng.IntN(2) {
				ws = append(ws, rare())
			}
			for range 2 + rng.IntN(4) {
				ws = append(ws, common[rng.IntN(len(common))])
			}
			query, k := strings.Join(ws, " "), 1+rng.IntN(30)
			want := ix.searchExhaustive(query, k)
			for _, m := range [][2]int{{1024, 0}, {1, 0}, {1, 1}} {
				flatFrom, pruneEager = m[0], m[1] == 1
				if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d query %d %q k %d (flat from %d, eager %v):\n got       %v\n reference %v",
						seed, q, query, k, flatFrom, pruneEager, got, want)
				}
			}
		}
	}
	if skips == 0 {
		t.Fatal("no segment was left to the events: the test checks nothing of them")
	}
	t.Logf("%d segments skipped", skips)
}
