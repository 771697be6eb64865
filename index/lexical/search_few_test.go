package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFewTouchedMatchesExhaustive: lists cut after the rare words are
// read add to the few touched slots by looking each up in the flat copy
// (addTableFew, or its rank: addTableRanked), after the slots that cannot reach the results are dropped
// (dropDead). Touched slots are ascending only in runs: a list's flat
// slots, then its postings beyond the saturation table (a word said 17+
// times) and those added after its copy was made. Search must still return
// exactly the reference scorer's ids and scores, ties included; the test
// fails if no lookup started over, so the runs cannot silently go
// untested. Looking up from where the last slot was found, without
// starting over at a slot below it, makes it fail, and so does a ranked
// lookup that reads the next posting's saturation.
func TestFewTouchedMatchesExhaustive(t *testing.T) {
	checkCleared(t)
	fews, restarts, cuts := 0, 0, 0
	onFew = func(r int) { fews, restarts = fews+1, restarts+r }
	onCut = func() { cuts++ }
	defer func() {
		onFew, onCut, pruneEager, finishEager, flatFrom, fewTouched, rankDensity = nil, nil, false, false, 1024, 8, 32
	}()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 27))
		rankDensity = []int{1, 1 << 30}[seed%2] // copies without ranks (galloped), with (looked up)
		ix := New(Config{K1: 0.8 + 2*rng.Float64(), B: 0.3 + 0.7*rng.Float64()})
		common := []string{"ca", "cb", "cc"}
		rare := func() string { return fmt.Sprintf("r%d", rng.IntN(200)) }
		text := func() string {
			var ws []string
			for _, c := range common {
				if rng.IntN(4) != 0 {
					ws = append(ws, c)
				}
			}
			for range 1 + rng.IntN(20) {
				ws = append(ws, rare())
			}
			if rng.IntN(5) == 0 { // beyond the saturation table: the copy's others
				ws = append(ws, strings.Repeat(rare()+" ", satTFs+1+rng.IntN(4)))
			}
			return strings.Join(ws, " ")
		}
		n := 3000 + rng.IntN(1000)
		for range n {
			ix.Add(uint64(rng.IntN(n*2)), text())
		}
		queries := make([]string, 120)
		for q := range queries {
			ws := []string{rare(), rare()}
			for range rng.IntN(2) {
				ws = append(ws, rare())
			}
			for range 1 + rng.IntN(3) {
				ws = append(ws, common[rng.IntN(len(common))])
			}
			queries[q] = strings.Join(ws, " ")
		}
		flatFrom, fewTouched = 1, 1
		for _, q := range queries { // the flat copies
			ix.Search(q, 10)
		}
		for range n / 8 { // postings after the copies: the lists' tails
			ix.Add(uint64(n*2+rng.IntN(n)), text())
		}
		for q, query := range queries {
			k := 1 + rng.IntN(30)
			want := ix.searchExhaustive(query, k)
			for _, m := range [][3]int{{1, 0, 0}, {1, 1, 0}, {8, 0, 0}, {1, 0, 1}} {
				fewTouched, pruneEager, finishEager = m[0], m[1] == 1, m[2] == 1
				if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d query %d %q k %d (few from %d, eager %v, finish at the first crowded stop %v):\n got       %v\n reference %v",
						seed, q, query, k, fewTouched, pruneEager, finishEager, got, want)
				}
			}
		}
	}
	if fews == 0 || restarts == 0 {
		t.Fatalf("%d lists looked up slot by slot, %d restarts (of %d cut): the test checks nothing of them", fews, restarts, cuts)
	}
	t.Logf("%d lists cut, %d looked up slot by slot, %d restarts", cuts, fews, restarts)
}
