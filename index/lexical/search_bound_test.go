package lexical

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// blockBounds is the reference for a cursor's bounds: the largest
// bm25.term over every block of p (largest tf, shortest passage), and the
// list's order, from its largest tf at its shortest passage.
func blockBounds(bm bm25, w float64, p *postings) (ub, order float64) {
	maxTF, minLen := uint32(0), uint32(math.MaxUint32)
	for _, b := range p.blocks {
		f := float64(b.maxTF)
		ub = max(ub, w*(f/(f+bm.base+bm.per*float64(b.minLen))))
		maxTF, minLen = max(maxTF, b.maxTF), min(minLen, b.minLen)
	}
	f := float64(maxTF)
	return ub, w * (f / (f + bm.base + bm.per*float64(minLen)))
}

// TestCursorBoundsMatchBlocks: every cursor a search opens has the bound
// and order of a scan of its list's blocks, while passages are added
// (lists grow new blocks with higher tfs and shorter passages: the kept
// peaks must be dropped), replaced and deleted between searches, with
// passages from 1 to 1,600 words and tfs up to 40.
func TestCursorBoundsMatchBlocks(t *testing.T) {
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 41))
		z := rand.NewZipf(rng, 1.1+rng.Float64(), 1, 300)
		word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
		ix := New(Config{K1: 0.5 + 2*rng.Float64(), B: rng.Float64()})
		for round := range 6 {
			for range 50 + rng.IntN(200) {
				ix.Add(uint64(rng.IntN(3000)), boundText(rng, word))
				if rng.IntN(6) == 0 {
					ix.Delete(uint64(rng.IntN(3000)))
				}
			}
			for range 20 {
				query := strings.Join([]string{word(), word(), word(), word(), word()}[:1+rng.IntN(5)], " ")
				qtf, _ := ix.countTerms(analysis.Tokenize(query))
				sc, bm := new(scratch), ix.bm25()
				ix.openCursors(sc, qtf, nil, bm)
				for _, c := range sc.cursors {
					ub, order := blockBounds(bm, c.w, c.p)
					if c.ub != ub || c.order != order {
						t.Fatalf("seed %d round %d %q term %d: ub %v order %v, blocks give %v %v", seed, round, query, c.term, c.ub, c.order, ub, order)
					}
				}
				ix.Search(query, 1+rng.IntN(40)) // and the searches' own cursors
			}
		}
	}
}

// boundText is a random passage of 1 to 1,600 words, some repeated up to
// 40 times (tfs and lengths beyond the saturation table).
func boundText(rng *rand.Rand, word func() string) string {
	n := 1 + rng.IntN(60)
	if rng.IntN(10) == 0 {
		n = 1 + rng.IntN(1600)
	}
	ws := make([]string, n)
	for j := range ws {
		ws[j] = word()
	}
	for range rng.IntN(3) {
		w := ws[rng.IntN(len(ws))]
		for range rng.IntN(40) {
			ws = append(ws, w)
		}
	}
	return strings.Join(ws, " ")
}

// TestSearchMatchesReferenceLong: on corpora of passages from 1 to 1,600
// words with tfs up to 40 (beyond the saturation table in both), long
// lists scored from flat copies, and passages added, replaced and deleted
// between searches, Search returns exactly the ids, scores and tie order
// of the reference scorer (plain division, bounds from every block) for
// k from 1 to 120, pruned and term at a time.
func TestSearchMatchesReferenceLong(t *testing.T) {
	setFlatFrom(t, 64)
	defer func() { exhaustiveFrom, pruneEager = 50, false }()
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 42))
		z := rand.NewZipf(rng, 1.05+rng.Float64(), 1, 500)
		word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
		ix := New(Config{K1: 0.5 + 2*rng.Float64(), B: rng.Float64()})
		for round := range 5 {
			for range 100 + rng.IntN(300) {
				ix.Add(uint64(rng.IntN(2500)), boundText(rng, word))
				if rng.IntN(5) == 0 {
					ix.Delete(uint64(rng.IntN(2500)))
				}
			}
			for q := range 30 {
				query := strings.Join([]string{word(), word(), word(), word(), word(), word()}[:1+rng.IntN(6)], " ")
				k := 1 + rng.IntN(120)
				want := ix.searchExhaustive(query, k)
				for _, m := range [][2]int{{1 << 30, 0}, {1 << 30, 1}, {1, 0}} {
					exhaustiveFrom, pruneEager = m[0], m[1] == 1
					if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("seed %d round %d query %d %q k %d mode %v:\n got       %v\n reference %v", seed, round, q, query, k, m, got, want)
					}
				}
			}
		}
	}
}
