package lexical

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// searchExhaustive is the reference scorer: term at a time over every
// posting, summing each passage's contributions in the order Search's
// cursors give (the largest list bound first, ties by term id).
func (ix *Index) searchExhaustive(query string, k int) []Result {
	qtf, _ := ix.countTerms(analysis.Tokenize(query))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if k <= 0 || ix.alive == 0 || len(qtf) == 0 {
		return nil
	}
	bm := ix.bm25()
	type term struct {
		id    uint32
		w, ub float64
	}
	var terms []term
	for t, qf := range qtf {
		id, ok := ix.termIDs[t]
		if !ok || ix.df[id] == 0 {
			continue
		}
		w, maxTF, minLen := bm.weight(float64(qf), ix.df[id]), uint32(0), uint32(math.MaxUint32)
		for _, b := range ix.post[id].blocks {
			maxTF, minLen = max(maxTF, b.maxTF), min(minLen, b.minLen)
		}
		f := float64(maxTF)
		terms = append(terms, term{id, w, w * (f / (f + bm.base + bm.per*float64(minLen)))})
	}
	slices.SortFunc(terms, func(a, b term) int {
		if a.ub != b.ub {
			return cmp.Compare(b.ub, a.ub)
		}
		return cmp.Compare(a.id, b.id)
	})
	scores := make(map[uint32]float32)
	var docs, tfs [blockSize]uint32
	for _, t := range terms {
		p := &ix.post[t.id]
		for bi := range p.blocks {
			for j := range p.decode(bi, &docs, &tfs) {
				if d := &ix.docs[docs[j]]; d.alive {
					f := float64(tfs[j])
					scores[docs[j]] += float32(t.w * (f / (f + bm.base + bm.per*float64(d.length))))
				}
			}
		}
	}
	var all resultHeap
	for s, sc := range scores {
		all = append(all, Result{ID: ix.docs[s].id, Score: sc})
	}
	all = all.sorted()
	return all[:min(k, len(all))]
}

// TestMaxScoreMatchesExhaustive: on random corpora with skewed vocabularies,
// deletions, replacements and compaction, both of Search's strategies (pruned
// and term at a time over the compressed lists) return exactly the ids and
// scores of a plain reference scorer, ties included; pruned also when it
// finishes in full at its first crowded stop.
func TestMaxScoreMatchesExhaustive(t *testing.T) {
	checkCleared(t)
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			vocab := 50 + rng.IntN(2000)
			z := rand.NewZipf(rng, 1.05+rng.Float64(), 1, uint64(vocab-1))
			word := func() string { return fmt.Sprintf("w%c%d", 'a'+rune(z.Uint64()%7), z.Uint64()) }
			ix := New(Config{K1: 0.5 + 2*rng.Float64(), B: rng.Float64()})
			n := 500 + rng.IntN(3000)
			var texts []string
			for range n {
				ws := make([]string, 1+rng.IntN(60))
				for j := range ws {
					ws[j] = word()
				}
				text := strings.Join(ws, " ")
				if len(texts) > 0 && rng.IntN(8) == 0 { // equal texts score equal: ties
					text = texts[rng.IntN(len(texts))]
				}
				texts = append(texts, text)
				ix.Add(uint64(rng.IntN(n*2)), text) // some ids repeat: replacements
				if rng.IntN(4) == 0 {
					ix.Delete(uint64(rng.IntN(n * 2)))
				}
			}
			for q := range 300 {
				ws := make([]string, 1+rng.IntN(8))
				for j := range ws {
					ws[j] = word()
				}
				query, k := strings.Join(ws, " "), 1+rng.IntN(120)
				want := ix.searchExhaustive(query, k)
				// Pruned (eager or not, candidates gathered by bestPartial
				// or not, a first stop that reads 1024 slots or 1 before
				// it settles), term at a time, term at a time split by
				// slot range.
				for _, from := range [][6]int{{1 << 30, 1 << 30, 0, 1, 0, 1024}, {1 << 30, 1 << 30, 1, 1, 0, 1024},
					{1 << 30, 1 << 30, 0, 0, 0, 1024}, {1 << 30, 1 << 30, 1, 0, 0, 1024}, {1 << 30, 1 << 30, 0, 1, 1, 1024},
					{1 << 30, 1 << 30, 0, 1, 0, 1}, {1 << 30, 1 << 30, 1, 1, 0, 1},
					{1, 1 << 30, 0, 1, 0, 1024}, {1, 1, 0, 1, 0, 1024}} {
					exhaustiveFrom, splitFrom, pruneEager, gatherPre, finishEager = from[0], from[1], from[2] == 1, from[3] == 1, from[4] == 1
					firstStopReads = from[5]
					if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("query %d %q k %d (exhaustive from k %d, split from %d postings, eager %v, gathered %v, finish at the first crowded stop %v, first stop reads %d):\n got       %v\n reference %v", q, query, k, from[0], from[1], pruneEager, gatherPre, finishEager, firstStopReads, got, want)
					}
				}
				exhaustiveFrom, splitFrom, pruneEager, gatherPre, finishEager, firstStopReads = 50, 1<<15, false, true, false, 1024
			}
		})
	}
}

// checkCleared fails t when a pruned search leaves a partial sum in its
// accumulator (onCleared), for the rest of the test.
func checkCleared(t *testing.T) {
	onCleared = func(acc []float32) {
		for s, a := range acc {
			if a != 0 {
				t.Fatalf("a pruned search left slot %d's partial sum %v behind", s, a)
			}
		}
	}
	t.Cleanup(func() { onCleared = nil })
}
