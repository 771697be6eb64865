package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWalkMatchesExhaustive: a query of three to eight terms answered by
// walk returns exactly the reference scorer's ids and scores, ties
// included, at every k, with postings beyond the saturation table,
// repeated texts (equal scores), deletions and filters; and when walk
// gives way (the seeds do not rule the other lists out, postings added
// after the flat copies, too many passages to look up) the general path
// answers the same. The test fails if walk never answered or never gave
// way. Leaving out the other lists' bound in the block test or in the
// postings' test, bounding a passage's remaining lookups without the next
// list's bound, or walking when the seeds do not rule the other lists out
// makes it fail.
func TestWalkMatchesExhaustive(t *testing.T) {
	answered := 0
	onWalk = func() { answered++ }
	defer func() { onWalk, flatFrom, twoFrom, twoLookups = nil, 1024, 1<<15, 8 }()
	flatFrom, twoFrom = 1, 0
	searches := 0
	words := []string{"wa", "wb", "wc", "wd", "we", "wf", "wg", "wh", "wi"}
	share := []int{2, 3, 4, 5, 8, 12, 20, 40, 90} // one passage in share[i] holds words[i]
	for seed := range uint64(16) {
		rng := rand.New(rand.NewPCG(seed, 291))
		ix := New(Config{K1: 0.8 + 2*rng.Float64(), B: 0.3 + 0.7*rng.Float64()})
		text := func() string {
			var ws []string
			for range 1 + rng.IntN(50) {
				ws = append(ws, fmt.Sprintf("f%d", rng.IntN(400)))
			}
			for i, w := range words {
				if rng.IntN(share[i]) == 0 {
					n := 1 + rng.IntN(2)
					if rng.IntN(25) == 0 {
						n += rng.IntN(satTFs + 6)
					}
					ws = append(ws, strings.Repeat(w+" ", n))
				}
			}
			if rng.IntN(40) == 0 { // longer than the table's lengths
				ws = append(ws, strings.Repeat("pad ", satLens+rng.IntN(100)))
			}
			return strings.Join(ws, " ")
		}
		n := 3000 + rng.IntN(3000)
		addRepeating(ix, rng, n, text)
		if seed%3 == 1 {
			for range n / 20 {
				ix.Delete(uint64(rng.IntN(n)))
			}
		}
		allow := &idFilter{set: map[uint64]bool{}}
		for i := range n + n/10 {
			if rng.IntN(4) != 0 {
				allow.set[uint64(i)] = true
			}
		}
		check := func(stage string) {
			for qi := range 24 {
				var q []string
				for _, i := range rng.Perm(len(words))[:3+rng.IntN(len(words)-2)] {
					q = append(q, words[i])
				}
				if qi%2 == 0 { // a rare word and common ones: walk's kind of query
					q = []string{words[6+rng.IntN(3)]}
					for _, i := range rng.Perm(6)[:2+rng.IntN(3)] {
						q = append(q, words[i])
					}
				}
				if qi%5 == 0 {
					q = append(q, q[0]) // a query weight of 2
				}
				query := strings.Join(q, " ")
				k := []int{1, 5, 10, 12, 30}[rng.IntN(5)]
				twoLookups = []int{8, 1, 1 << 30}[qi%3]
				want := ix.searchExhaustive(query, k)
				got := ix.Search(query, k)
				walkOff = true
				general := ix.Search(query, k)
				wantF := ix.SearchIn(query, k, allow)
				walkOff = false
				gotF := ix.SearchIn(query, k, allow)
				searches++
				if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(general) != fmt.Sprint(want) || fmt.Sprint(gotF) != fmt.Sprint(wantF) {
					t.Fatalf("seed %d %s %q k %d (lookups 1/%d):\n got       %v\n general   %v\n reference %v\n filtered  %v\n general   %v",
						seed, stage, query, k, twoLookups, got, general, want, gotF, wantF)
				}
			}
		}
		check("copies made by the first searches")
		for i := range n / 10 { // postings after the copies: walk gives way
			ix.Add(uint64(n+i), text())
		}
		check("with tails")
	}
	if answered == 0 || answered == searches*2 {
		t.Fatalf("walk answered %d of %d searches: both ways must be tested", answered, searches*2)
	}
	t.Logf("walk answered %d of %d searches", answered, searches*2)
}
