package lexical

import (
	"cmp"
	"math"
	"slices"
)

// Search returns up to k passages ranked by BM25 for query, best first; ties
// go to the smaller id. No match, k ≤ 0 or an empty index give nil. It
// is safe for concurrent use.
//
// Below k 50, the lists with the largest score bounds are scored term at a
// time and the rest, the common words, are skipped once their bounds cannot
// matter, the passages that could still reach the results being rescored
// from their own terms (pruned; the idea of MaxScore, Turtle & Flood,
// "Query evaluation: strategies and optimizations", 1995). Bounds carry a
// margin for float rounding, so results and scores are exactly those of
// scoring every posting, which is what larger k do
// (TestMaxScoreMatchesExhaustive).
func (ix *Index) Search(query string, k int) []Result {
	return ix.SearchQuery(query, nil, k)
}

// searchCounted is Search for a query's counted terms.
func (ix *Index) searchCounted(qtf map[string]uint32, k int) []Result {
	return ix.searchCountedIn(qtf, k, nil)
}

// searchCountedIn is searchCounted among the passages f allows (nil: all).
func (ix *Index) searchCountedIn(qtf map[string]uint32, k int, f Filter) []Result {
	return ix.searchCountedAs(qtf, nil, k, f, false)
}

// searchCountedAs is searchCountedIn scoring with a short query's k1 and
// b when short (query_short.go), the index's otherwise, and the terms of
// parts, which came from words of identifiers (analysis.CompoundParts),
// at compoundPartWeight for as many of their occurrences (query_parts.go).
func (ix *Index) searchCountedAs(qtf map[string]uint32, parts map[string]int, k int, f Filter, short bool) []Result {
	if k <= 0 {
		return nil
	}
	ix.searching.Add(1)
	defer ix.searching.Add(-1)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.alive == 0 || len(qtf) == 0 {
		return nil
	}
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer ix.scratch.Put(sc)
	bm := ix.bm25With(short)
	sc.sat = ix.satTable(bm)
	ix.openCursors(sc, qtf, parts, bm)
	if len(sc.cursors) == 0 {
		return nil
	}
	sc.allow = ix.allowFunc(f)
	defer func() { sc.allow = nil }()
	sc.read, sc.rescored = 0, 0
	res := ix.rank(sc, bm, k, f)
	if onSearch != nil {
		onSearch(sc.read, sc.rescored)
	}
	return res
}

// onSearch, when set (benchmarks), is told after each search how many
// postings it read (the lengths of the lists it scored) and how many
// passages it rescored from their own terms.
var onSearch func(read, rescored int)

// rank is searchCountedIn's choice of strategy.
func (ix *Index) rank(sc *scratch, bm bm25, k int, f Filter) []Result {
	if f != nil && f.Few() != nil && len(f.Few()) <= fewMax {
		return ix.scoreFew(sc, bm, k, f.Few())
	}
	if len(sc.cursors) == 1 && !oneOff {
		return ix.one(sc, bm, k)
	}
	if len(sc.cursors) == 2 {
		if res, ok := ix.two(sc, bm, k); ok {
			return res
		}
	}
	if k >= exhaustiveFrom {
		return ix.exhaustive(sc, bm, k)
	}
	if res, ok := ix.walk(sc, bm, k); ok {
		return res
	}
	return ix.pruned(sc, bm, k)
}

// exhaustiveFrom is the k from which Search scores every posting term at a
// time instead of pruning: with a low k-th score few lists can be skipped
// and many candidates must be rescored. Thread CPU per SciFact claim on the
// 100k scale library, pruned against exhaustive (means, shared machine):
// k 10 1.47 against 2.67 ms, k 30 1.93 against 3.27, k 100 2.12 against
// 1.69. (Document-at-a-time MaxScore, used below k 50 before, was slower
// than exhaustive there at every k: 1.8-2.3 against 1.1-1.2 ms p50 at k 30,
// quieter machine.)
var exhaustiveFrom = 50

// pruneEager makes pruned check whether it can stop after every list and
// accept any number of candidates (tests: more early stops).
var pruneEager = false

// oneOff makes a one-list query go the way of the others (tests).
var oneOff = false

// scratch is per-search working memory, pooled.
type scratch struct {
	cursors   []cursor
	walkFlats []*flat   // walk: the cursors' flat copies
	contrib   []float32 // pruned: the rescored passage's contribution per cursor
	heap      resultHeap
	sat       *satTable  // the saturation table of this search's statistics
	acc       []float32  // score (pruned: partial sum) per slot, zero between searches
	touched   []uint32   // slots scored
	parts     []*scratch // one per slot range scored concurrently (exhaustive)
	// pruned:
	best      []Result           // the best partial sums (ID: slot)
	cand      []uint32           // slots that may reach the results
	candUB    []float64          // their score bounds (blockBound)
	rdLen     [boundLens]float64 // bound's remaining lists' part by passage length, -1 until computed
	pre       []uint32           // bestPartial's slots for candidates to filter (see there)
	segEnd    []int              // segEnd[j]: the slots first touched by lists up to j end here in touched
	segUB     []float32          // segUB[j]: a bound of those first touched by list j (segBounds)
	preFrom   int                // where in touched pre began, -1 if it did not
	preLow    float32            // the floor pre was cut at last
	preEnd    int                // where in touched bestPartial stopped reading (pre holds none beyond)
	qterms    []qterm            // query terms by term id
	rest      []float64          // rest[j]: summed bounds of cursors[j:]
	restPost  []int              // restPost[j]: postings of cursors[j:]
	blockUB   []float64          // one: each block's bound, -1 once scored
	topBlocks []int              // one, two: a list's blocks with the largest bounds
	blockRest []float64          // walk: per block of the first list, its bounds (walkBounds)
	// allow, when not nil, tells the slots a filtered search may return
	// (SearchFiltered); the others never enter heap, best or cand.
	allow func(s uint32) bool
	// two, walk: the copies of lists too short to keep one (flatFor)
	shortFlats [maxWalk]flat
	// What the search read (onSearch): postings of the lists scored, and
	// passages rescored.
	read, rescored int
}

// bm25 holds what scoring needs of the index statistics. The length
// normalisation k1·(1−b+b·len/avgdl) is kept as base + per·len, so that a
// posting costs one multiply-add and one division; short tells a short
// query's parameters (query_short.go) from the index's.
type bm25 struct {
	k1, n, base, per float64
	short            bool
}

func (ix *Index) bm25() bm25 { return ix.bm25With(false) }

// bm25With is bm25 with a short query's k1 and b (shortQueryK1,
// shortQueryB) in place of the index's when short.
func (ix *Index) bm25With(short bool) bm25 {
	avgdl := float64(ix.totalLen) / float64(ix.alive)
	if avgdl == 0 {
		avgdl = 1
	}
	k1, b := ix.cfg.K1, ix.cfg.B
	if short {
		k1, b = shortQueryK1, shortQueryB
	}
	return bm25{k1: k1, n: float64(ix.alive), base: k1 * (1 - b), per: k1 * b / avgdl, short: short}
}

// weight is qw · idf · (k1+1), with Lucene's idf (never negative); qw is
// the term's weight in the query, its count there unless some of those
// are words of identifiers (queryWeight).
func (m bm25) weight(qw float64, df uint32) float64 {
	d := float64(df)
	return qw * math.Log(1+(m.n-d+0.5)/(d+0.5)) * (m.k1 + 1)
}

// term is one term's contribution for a passage of length tokens: w times
// the saturation sat. Every scorer computes it as this product (the hot
// loops read sat from a satTable), so their scores agree to the bit.
func (m bm25) term(w float64, tf, length uint32) float64 {
	return w * m.sat(tf, length)
}

// sat is tf/(tf + k1·(1−b+b·len/avgdl)): how much of its weight a term
// with frequency tf gives a passage of length tokens.
func (m bm25) sat(tf, length uint32) float64 {
	f := float64(tf)
	return f / (f + m.base + m.per*float64(length))
}

// openCursors places one cursor per query term that some live passage
// holds, the largest list bound first (ties by term id): the bound of the
// list's largest tf at its shortest passage, which does not depend on how
// the postings fall into blocks. Every scorer adds a passage's
// contributions in this order, which makes float32 scores identical run to
// run, between the scorers and whatever the passages' slots (reorder.go);
// pruned reads the lists in it.
func (ix *Index) openCursors(sc *scratch, qtf map[string]uint32, parts map[string]int, bm bm25) {
	sc.cursors = sc.cursors[:0]
	for t, qf := range qtf {
		id, ok := ix.termIDs[t]
		if !ok || ix.df[id] == 0 {
			continue
		}
		p := &ix.post[id]
		w := bm.weight(queryWeight(qf, parts[t]), ix.df[id])
		pk := p.peaksOf()
		c := cursor{p: p, term: id, w: w, maxTF: pk.maxTF}
		for _, b := range pk.front { // a block's largest tf and shortest passage bound its postings
			c.ub = max(c.ub, bm.term(w, b.tf, b.length))
		}
		c.order = bm.term(w, pk.maxTF, pk.minLen)
		sc.cursors = append(sc.cursors, c)
	}
	slices.SortFunc(sc.cursors, func(a, b cursor) int {
		if c := cmp.Compare(b.order, a.order); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
}

// offer adds r to the k best held and reports whether the heap is full and
// its minimum may have changed.
func (sc *scratch) offer(r Result, k int) bool {
	h := sc.heap
	switch {
	case len(h) < k:
		h = append(h, r)
		h.up(len(h) - 1)
		sc.heap = h
	case better(r, h[0]):
		h[0] = r
		h.down(0)
	default:
		return false
	}
	return len(sc.heap) == k
}

func better(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// resultHeap keeps the worst result on top. It is typed rather than a
// container/heap: no interface calls and no allocation per push.
type resultHeap []Result

func (h resultHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h resultHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			l = r
		}
		if !better(h[i], h[l]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// sorted returns a fresh slice of the held results, best first; nil when
// there are none.
func (h resultHeap) sorted() []Result {
	if len(h) == 0 {
		return nil
	}
	out := slices.Clone(h)
	slices.SortFunc(out, func(a, b Result) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return out
}
