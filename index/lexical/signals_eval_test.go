package lexical

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/internal/evalset"
)

// Two ranking signals BM25 does not have, measured for issue 41's
// known-item goal and not built (docs/benchmarks/known-item.md#s31):
// adjacency of the query's terms in the passage (a rerank of BM25's top
// results) and a heading weight (the passage's first line, its heading
// path, counted w times). These evaluations are opt-in: they need the
// collections (MCPVEC_EVAL=1), a real-text set (MCPVEC_KNOWNITEM_SET) or
// the 1M index (MCPVEC_BENCH_*), and they print tables; they assert
// nothing about the figures.

// adjacentShare is the share of the query's distinct adjacent term pairs
// (after analysis.Tokenize: stop words out, stems) that stand adjacent in
// text, or 0 when the query has fewer than two or more than maxTerms terms.
func adjacentShare(qt []string, text string, maxTerms int) float64 {
	if len(qt) < 2 || len(qt) > maxTerms {
		return 0
	}
	want := map[[2]string]bool{}
	for i := 0; i+1 < len(qt); i++ {
		if qt[i] != qt[i+1] {
			want[[2]string{qt[i], qt[i+1]}] = false
		}
	}
	if len(want) == 0 {
		return 0
	}
	pt := analysis.Tokenize(text)
	got := 0
	for i := 0; i+1 < len(pt); i++ {
		if seen, ok := want[[2]string{pt[i], pt[i+1]}]; ok && !seen {
			want[[2]string{pt[i], pt[i+1]}] = true
			got++
		}
	}
	return float64(got) / float64(len(want))
}

// adjacencyRerank reorders res (BM25's top results for query) by score ×
// (1 + alpha × adjacentShare), ties by id, and gives each result that
// score (never below its BM25 score, so above any result res left out:
// eval.py orders a run by score).
func adjacencyRerank(res []Result, query string, texts func(uint64) string, maxTerms int, alpha float64) []Result {
	qt := analysis.Tokenize(query)
	out := slices.Clone(res)
	score := make(map[uint64]float64, len(out))
	for _, r := range res {
		score[r.ID] = float64(r.Score) * (1 + alpha*adjacentShare(qt, texts(r.ID), maxTerms))
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(cmp.Compare(score[b.ID], score[a.ID]), cmp.Compare(a.ID, b.ID))
	})
	for i := range out {
		out[i].Score = float32(score[out[i].ID])
	}
	return out
}

// headingRepeated is text with its first line (the heading path, as
// store.Chunk.IndexText writes it) w times: a heading weight of w.
func headingRepeated(text string, w int) string {
	line, _, _ := strings.Cut(text, "\n")
	return strings.Repeat(line+"\n", max(w-1, 0)) + text
}

var (
	signalAlphas   = []float64{0.1, 0.2, 0.3, 0.5}
	signalMaxTerms = []int{4, 5, 6, 8, 1 << 20}
	signalDepths   = []int{20, 30, 50}
	signalHeadings = []int{2, 3}
)

// TestSignalsEval scores SciFact and Cranfield (nDCG@10 and MRR@10,
// eval.py) with each signal, against BM25 alone:
//
//	MCPVEC_EVAL=1 go test -run TestSignalsEval -v ./index/lexical/
func TestSignalsEval(t *testing.T) {
	dir := evalDir(t)
	for _, coll := range []string{"scifact", "cranfield"} {
		docs, qs, err := evalset.Load(filepath.Join(dir, coll))
		if err != nil {
			t.Fatal(err)
		}
		ids, texts := make([]string, len(docs)), make([]string, len(docs))
		for i, d := range docs {
			ids[i], texts[i] = d.ID, d.Title+"\n"+d.Text
		}
		text := func(id uint64) string { return texts[id] }
		for _, w := range append([]int{1}, signalHeadings...) {
			ix := New(DefaultConfig())
			for i, tx := range texts {
				ix.Add(uint64(i), headingRepeated(tx, w))
			}
			m := scoreRun(t, dir, coll, qs, ids, func(q string) []Result { return ix.SearchQuery(q, nil, 100) })
			fmt.Printf("%s heading weight %d: nDCG@10 %.4f MRR@10 %.4f\n", coll, w, m["ndcg@10"], m["mrr@10"])
			if w != 1 {
				continue
			}
			for _, mt := range signalMaxTerms {
				for _, depth := range signalDepths {
					for _, a := range signalAlphas {
						m := scoreRun(t, dir, coll, qs, ids, func(q string) []Result {
							res := ix.SearchQuery(q, nil, 100)
							n := min(depth, len(res))
							return append(adjacencyRerank(res[:n], q, text, mt, a), res[n:]...)
						})
						fmt.Printf("%s adjacency top %d, at most %d terms, alpha %.2f: nDCG@10 %.4f MRR@10 %.4f\n", coll, depth, mt, a, m["ndcg@10"], m["mrr@10"])
					}
				}
			}
		}
	}
}

// TestSignalsKnownItem counts a real-text set's known-item queries whose
// passage is in the top 10 with each signal (the adjacency rerank at each
// depth, term limit and alpha; the heading weights, one index each):
//
//	MCPVEC_KNOWNITEM_SET=/tmp/rtc/all go test -run TestSignalsKnownItem -timeout 60m -v ./index/lexical/
func TestSignalsKnownItem(t *testing.T) {
	set, texts, key := knownItemSet(t)
	lines := knownItemLines(t, set+"/queries.tsv")
	text := func(id uint64) string { return texts[id] }
	found := func(ix *Index, depth int, rerank func(res []Result, q string) []Result) int {
		n := 0
		for _, l := range lines {
			f := strings.Split(l, "\t")
			res := rerank(ix.SearchQuery(f[4], nil, depth), f[4])
			if r := rankOf(res[:min(10, len(res))], key[f[1]+"\t"+f[2]]); r >= 0 {
				n++
			}
		}
		return n
	}
	for _, w := range append([]int{1}, signalHeadings...) {
		ix := New(DefaultConfig())
		for i, tx := range texts {
			ix.Add(uint64(i), headingRepeated(tx, w))
		}
		ix.Fold()
		fmt.Printf("heading weight %d: %d of %d\n", w, found(ix, 10, func(res []Result, _ string) []Result { return res }), len(lines))
		if w != 1 {
			continue
		}
		for _, mt := range signalMaxTerms {
			for _, depth := range signalDepths {
				for _, a := range signalAlphas {
					n := found(ix, depth, func(res []Result, q string) []Result { return adjacencyRerank(res, q, text, mt, a) })
					fmt.Printf("adjacency top %d, at most %d terms, alpha %.2f: %d of %d\n", depth, mt, a, n, len(lines))
				}
			}
		}
	}
}

// TestSignalsDepthCost is what a rerank's depth costs the BM25 search: the
// mean process CPU and wall time of the real-text queries at each k, in
// two rounds (k from exhaustiveFrom on scores on several goroutines, so
// the process's CPU, not the thread's, is the cost):
//
//	MCPVEC_BENCH_PASSAGES=/tmp/rtc/all/passages.tsv MCPVEC_BENCH_QUERYTSV=/tmp/rtc/all/queries.tsv \
//	  MCPVEC_BENCH_LEXDB=/tmp/rt1m-lex.db go test -run TestSignalsDepthCost -v ./index/lexical/
func TestSignalsDepthCost(t *testing.T) {
	withShortQueries(t)
	ix, queries := openRealText(t)
	for _, q := range queries {
		ix.SearchQuery(q, nil, 10) // warm the flat copies
	}
	for round := range 2 {
		for _, k := range []int{10, 20, 30, exhaustiveFrom - 1, exhaustiveFrom} {
			runtime.GC()
			c0, w0 := processCPU(t), time.Now()
			for _, q := range queries {
				ix.SearchQuery(q, nil, k)
			}
			n := time.Duration(len(queries))
			fmt.Printf("round %d k %d: CPU %v wall %v a query\n", round+1, k, (processCPU(t)-c0)/n, time.Since(w0)/n)
		}
	}
}

// processCPU is the process's user and system CPU so far.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
