package lexical

import (
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
// answers the same, whether the lists' flat copies are kept or, for short
// lists, made for the search. The test fails if walk never answered or never gave
// way. Leaving out the other lists' bound in the block test or in the
// postings' test, bounding a passage's remaining lookups without the next
// list's bound, or walking when the seeds do not rule the other lists out
// makes it fail.
func TestWalkMatchesExhaustive(t *testing.T) {
	answered := 0
	onWalk = func() { answered++ }
	defer func() { onWalk, flatFrom, walkFrom, twoLookups, rankDensity = nil, 1024, 1<<17, 8, 32 }()
	flatFrom, walkFrom = 1, 0
	searches := 0
	words := []string{"wa", "wb", "wc", "wd", "we", "wf", "wg", "wh", "wi"}
	share := []int{2, 3, 4, 5, 8, 12, 20, 40, 90} // one passage in share[i] holds words[i]
	for seed := range uint64(16) {
		rng := rand.New(rand.NewPCG(seed, 291))
		rankDensity = []int{32, 1 << 30, 1}[seed%3] // the dense lists' copies ranked, every one, none
		ix, text, n, allow := wordCorpus(rng, words, share, seed%3 == 1)
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
				flatFrom = []int{1, 200, 1 << 30}[qi/3%3] // kept copies, the rare lists' copied per search, all copied per search
				searches++
				if d := differsFromReference(ix, query, k, allow, &walkOff); d != "" {
					t.Fatalf("seed %d %s %q k %d (lookups 1/%d):%s", seed, stage, query, k, twoLookups, d)
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
