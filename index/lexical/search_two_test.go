package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTwoListsMatchExhaustive: a query of two terms answered by two
// returns exactly the reference scorer's ids and scores, ties included,
// at every k, with postings beyond the saturation table (a word said 17+
// times, a passage of 1,024+ tokens), repeated texts (equal scores),
// deletions and filters; and when two gives way (a second list that may
// still bring passages of its own, postings added after the flat copies,
// too many passages to look up) the general path answers the same,
// whether the lists' flat copies are kept or, for short lists, made for
// the search. The
// test fails if two never answered or never gave way. Leaving out the
// second list's bound in the postings' test (a block's alone) makes it
// fail.
func TestTwoListsMatchExhaustive(t *testing.T) {
	answered := 0
	onTwo = func() { answered++ }
	defer func() { onTwo, flatFrom, twoFrom, twoLookups, rankDensity = nil, 1024, 1<<15, 8, 32 }()
	flatFrom, twoFrom = 1, 0
	searches := 0
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 282))
		rankDensity = []int{32, 1 << 30, 1}[seed%3] // the dense lists' copies ranked, every one, none
		words := []string{"wa", "wb", "wc", "wd"}
		share := []int{2, 3, 5, 12} // one passage in share[i] holds words[i]
		ix, text, n, allow := wordCorpus(rng, words, share, seed%3 == 1)
		check := func(stage string) {
			for qi := range 16 {
				q := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
				if qi%5 == 0 {
					q += " " + q // a query weight of 2
				}
				k := []int{1, 5, 10, 12, 30, 60}[rng.IntN(6)]
				twoLookups = []int{8, 1, 1 << 30}[qi%3]
				flatFrom = []int{1, 200, 1 << 30}[qi/3%3] // kept copies, the rare lists' copied per search, all copied per search
				searches++
				if d := differsFromReference(ix, q, k, allow, &twoOff); d != "" {
					t.Fatalf("seed %d %s %q k %d (lookups 1/%d):%s", seed, stage, q, k, twoLookups, d)
				}
			}
		}
		check("copies made by the first searches")
		for i := range n / 10 { // postings after the copies: two gives way
			ix.Add(uint64(n+i), text())
		}
		check("with tails")
	}
	if answered == 0 || answered == searches*2 {
		t.Fatalf("two answered %d of %d searches: both ways must be tested", answered, searches*2)
	}
	t.Logf("two answered %d of %d searches", answered, searches*2)
}

// wordCorpus is the random corpus of the walks' tests: 3,000-6,000
// passages of filler words, each holding words[i] in one of share[i]
// (once or twice, now and then beyond the saturation table's tfs), now
// and then longer than the table's lengths, a tenth repeating an earlier
// text (equal scores); a twentieth deleted when deleting. It returns the
// index, the text maker (for passages added later), the number of
// passages and a filter allowing about three in four of the ids.
func wordCorpus(rng *rand.Rand, words []string, share []int, deleting bool) (*Index, func() string, int, *idFilter) {
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
	if deleting {
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
	return ix, text, n, allow
}

// differsFromReference searches query at k four ways, the strategy under
// test on and off (*off), with and without allow, and describes how the
// results differ from the reference scorer's (and the filtered ones
// between the two ways), "" when they are identical.
func differsFromReference(ix *Index, query string, k int, allow *idFilter, off *bool) string {
	want := ix.searchExhaustive(query, k)
	got := ix.Search(query, k)
	*off = true
	general := ix.Search(query, k)
	wantF := ix.SearchIn(query, k, allow)
	*off = false
	gotF := ix.SearchIn(query, k, allow)
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(general) != fmt.Sprint(want) || fmt.Sprint(gotF) != fmt.Sprint(wantF) {
		return fmt.Sprintf("\n got       %v\n general   %v\n reference %v\n filtered  %v\n general   %v", got, general, want, gotF, wantF)
	}
	return ""
}
