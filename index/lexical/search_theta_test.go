package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestThetaCutMatchesExhaustive: on corpora where a few words are in two
// thirds to four fifths of the passages, queries of rare and common words
// make pruned carry a failed stop's results into the next (seeds) and read
// the common lists into touched slots only (cuts). Search must still return
// exactly the reference scorer's ids and scores, ties included, with lists
// read compressed or from flat copies, stopping lazily or after every list,
// finishing or not; the test fails if no list was cut, so the path it
// checks cannot silently go unused. Cutting a list by the bound of the
// lists after it, or offering a seed's passage twice, makes it fail.
func TestThetaCutMatchesExhaustive(t *testing.T) {
	checkCleared(t)
	cuts := 0
	onCut = func() { cuts++ }
	defer func() {
		onCut, pruneEager, finishEager, flatFrom, firstStopReads = nil, false, false, 1024, 1024
	}()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 16))
		ix := New(Config{K1: 0.8 + 2*rng.Float64(), B: 0.3 + 0.7*rng.Float64()})
		common := []string{"ca", "cb", "cc", "cd"}
		share := []int{3, 2, 2, 1} // common[i] is in share[i]+1 of share[i]+2 passages
		rare := func() string { return fmt.Sprintf("r%d", rng.IntN(300)) }
		n := 2000 + rng.IntN(2000)
		var texts []string
		for range n {
			var ws []string
			for i, c := range common {
				if rng.IntN(share[i]+2) != 0 {
					ws = append(ws, c)
				}
			}
			for range 1 + rng.IntN(30) {
				ws = append(ws, rare())
			}
			text := strings.Join(ws, " ")
			if len(texts) > 0 && rng.IntN(10) == 0 { // equal texts score equal: ties
				text = texts[rng.IntN(len(texts))]
			}
			texts = append(texts, text)
			ix.Add(uint64(rng.IntN(n*2)), text)
			if rng.IntN(6) == 0 {
				ix.Delete(uint64(rng.IntN(n * 2)))
			}
		}
		for q := range 150 {
			ws := []string{rare()}
			for range rng.IntN(3) {
				ws = append(ws, rare())
			}
			for range 1 + rng.IntN(4) {
				ws = append(ws, common[rng.IntN(len(common))])
			}
			query, k := strings.Join(ws, " "), 1+rng.IntN(40)
			want := ix.searchExhaustive(query, k)
			for _, m := range [][4]int{{1024, 0, 0, 1024}, {1024, 1, 0, 1024}, {1, 0, 0, 1024}, {1, 1, 0, 1024}, {1, 0, 1, 1024}, {1, 0, 0, 1}} {
				flatFrom, pruneEager, finishEager, firstStopReads = m[0], m[1] == 1, m[2] == 1, m[3]
				if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d query %d %q k %d (flat from %d, eager %v, finish %v):\n got       %v\n reference %v",
						seed, q, query, k, flatFrom, pruneEager, finishEager, got, want)
				}
			}
		}
	}
	if cuts == 0 {
		t.Fatal("no list was read into touched slots only: the test checks nothing of the cut")
	}
	t.Logf("%d lists cut", cuts)
}
