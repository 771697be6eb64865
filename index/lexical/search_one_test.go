package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOneListMatchesExhaustive: a query of one term (one) returns exactly
// the reference scorer's ids and scores, ties included, at every k, with
// and without the lists' flat copies, with postings beyond the saturation
// table (a word said 17+ times, a passage of 1,024+ tokens), postings
// added after the copies, deleted passages, repeated texts (equal scores)
// and filters; and it matches what the general path (pruned, or term at a
// time from k 50) returns. The test fails if no block was ever skipped,
// so the bounds cannot silently go untested. A bound taken from the
// block's smallest tf instead of its largest makes it fail.
func TestOneListMatchesExhaustive(t *testing.T) {
	skipped, blocks := 0, 0
	onOne = func(s, b int) { skipped, blocks = skipped+s, blocks+b }
	defer func() { onOne, flatFrom, oneOff = nil, 1024, false }()
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 28))
		ix := New(Config{K1: 0.8 + 2*rng.Float64(), B: 0.3 + 0.7*rng.Float64()})
		words := []string{"wa", "wb", "wc", "wd", "we"}
		text := func() string {
			var ws []string
			for range 1 + rng.IntN(60) {
				ws = append(ws, fmt.Sprintf("f%d", rng.IntN(300)))
			}
			for _, w := range words {
				if rng.IntN(3) == 0 {
					if rng.IntN(20) != 0 { // mostly said once
						ws = append(ws, w)
						continue
					}
					for range 1 + rng.IntN(2) + rng.IntN(2)*rng.IntN(2)*rng.IntN(satTFs+6) {
						ws = append(ws, w)
					}
				}
			}
			if rng.IntN(40) == 0 { // longer than the table's lengths
				ws = append(ws, strings.Repeat("pad ", satLens+rng.IntN(200)))
			}
			return strings.Join(ws, " ")
		}
		n := 2000 + rng.IntN(3000)
		addRepeating(ix, rng, n, text)
		if seed%2 == 0 {
			flatFrom = 1
		} else {
			flatFrom = 1024
		}
		for _, w := range words { // the flat copies, when made
			ix.Search(w, 10)
		}
		for i := range n / 10 { // postings after the copies
			ix.Add(uint64(n+i), text())
		}
		if seed%3 == 0 {
			for range n / 20 {
				ix.Delete(uint64(rng.IntN(n)))
			}
		}
		allow := &idFilter{set: map[uint64]bool{}}
		for i := range n + n/10 {
			if rng.IntN(3) != 0 {
				allow.set[uint64(i)] = true
			}
		}
		for _, w := range append(words, "f7", "pad") {
			for _, k := range []int{1, 3, 10, 12, 40, 60} {
				want := ix.searchExhaustive(w, k)
				got := ix.Search(w, k)
				oneOff = true
				general := ix.Search(w, k)
				oneOff = false
				if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(general) != fmt.Sprint(want) {
					t.Fatalf("seed %d %q k %d:\n got       %v\n general   %v\n reference %v", seed, w, k, got, general, want)
				}
				got = ix.SearchIn(w, k, allow)
				oneOff = true
				want = ix.SearchIn(w, k, allow)
				oneOff = false
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d %q k %d, filtered:\n got     %v\n general %v", seed, w, k, got, want)
				}
			}
		}
	}
	if skipped == 0 || skipped == blocks {
		t.Fatalf("%d of %d blocks skipped: the bounds were not tested", skipped, blocks)
	}
	t.Logf("%d of %d blocks skipped", skipped, blocks)
}

// addRepeating adds passages 0 to n-1 to ix, each text(), or a tenth of
// them (after the first) an earlier one's text again: passages with equal
// scores, whose order the ids decide.
func addRepeating(ix *Index, rng *rand.Rand, n int, text func() string) {
	texts := make([]string, 0, n)
	for i := range n {
		tx := text()
		if i > 0 && rng.IntN(10) == 0 {
			tx = texts[rng.IntN(len(texts))]
		}
		texts = append(texts, tx)
		ix.Add(uint64(i), tx)
	}
}
