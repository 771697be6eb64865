package lexical

import (
	"cmp"
	"maps"
	"math"
	"slices"
)

// Search returns up to k passages ranked by BM25 for query, best first; ties
// go to the smaller id. No match, k ≤ 0 or an empty index give nil. It
// is safe for concurrent use.
//
// Below k 50, scoring is document at a time with MaxScore pruning (Turtle &
// Flood, "Query evaluation: strategies and optimizations", 1995): once k
// results are held, query terms whose combined upper bounds cannot lift a
// passage to the k-th score stop generating candidates and are only probed,
// block by block, for passages the other terms found. Bounds carry a margin
// for float rounding, so results and scores are exactly those of scoring
// every posting, which is what larger k do (TestMaxScoreMatchesExhaustive).
func (ix *Index) Search(query string, k int) []Result {
	if k <= 0 {
		return nil
	}
	qtf, _ := ix.countTerms(Tokenize(query))
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
	bm := ix.bm25()
	ix.openCursors(sc, qtf, bm)
	if len(sc.cursors) == 0 {
		return nil
	}
	if k >= exhaustiveFrom {
		return ix.exhaustive(sc, bm, k)
	}
	return ix.maxScore(sc, bm, k)
}

// exhaustiveFrom is the k from which Search scores every posting term at a
// time instead of pruning: with a low k-th score MaxScore prunes little and
// its per-passage bookkeeping costs more than it saves. On 30k synthetic
// passages (CPU per query, p50/p99): k 10, MaxScore 150/1,000-1,200 µs
// against 480/1,500; k 100, 400-470/1,300-1,700 against 380-500/1,100-1,300.
var exhaustiveFrom = 50

// scratch is per-search working memory, pooled.
type scratch struct {
	cursors []cursor
	order   []int     // cursor indexes by ascending upper bound
	cum     []float64 // cum[j]: sum of the bounds of order[:j+1]
	contrib []float32 // the current passage's contribution per cursor
	heap    resultHeap
	acc     []float32  // exhaustive: score per slot, zero between searches
	touched []uint32   // exhaustive: slots scored
	parts   []*scratch // exhaustive: one per slot range scored concurrently
}

// bm25 holds what scoring needs of the index statistics. The length
// normalisation k1·(1−b+b·len/avgdl) is kept as base + per·len, so that a
// posting costs one multiply-add and one division.
type bm25 struct{ k1, n, base, per float64 }

func (ix *Index) bm25() bm25 {
	avgdl := float64(ix.totalLen) / float64(ix.alive)
	if avgdl == 0 {
		avgdl = 1
	}
	k1, b := ix.cfg.K1, ix.cfg.B
	return bm25{k1: k1, n: float64(ix.alive), base: k1 * (1 - b), per: k1 * b / avgdl}
}

// weight is qtf · idf · (k1+1), with Lucene's idf (never negative).
func (m bm25) weight(qtf, df uint32) float64 {
	d := float64(df)
	return float64(qtf) * math.Log(1+(m.n-d+0.5)/(d+0.5)) * (m.k1 + 1)
}

// term is one term's contribution for a passage of length tokens.
func (m bm25) term(w float64, tf, length uint32) float64 {
	f := float64(tf)
	return w * f / (f + m.base + m.per*float64(length))
}

// openCursors places one cursor per query term that some live passage
// holds, in sorted term order: float sums in that order make scores
// identical run to run and to the exhaustive scorer.
func (ix *Index) openCursors(sc *scratch, qtf map[string]uint32, bm bm25) {
	sc.cursors = sc.cursors[:0]
	for _, t := range slices.Sorted(maps.Keys(qtf)) {
		id, ok := ix.termIDs[t]
		if !ok || ix.df[id] == 0 {
			continue
		}
		p := &ix.post[id]
		maxTF, minLen := uint32(0), uint32(math.MaxUint32)
		for _, b := range p.blocks {
			maxTF, minLen = max(maxTF, b.maxTF), min(minLen, b.minLen)
		}
		sc.cursors = append(sc.cursors, cursor{})
		c := &sc.cursors[len(sc.cursors)-1]
		c.w = bm.weight(qtf[t], ix.df[id])
		c.ub = bm.term(c.w, maxTF, minLen)
		c.reset(p)
	}
}

// prepare sorts the cursors by bound and fills the cumulative bounds.
func (sc *scratch) prepare() {
	n := len(sc.cursors)
	sc.order = sc.order[:0]
	for i := range n {
		sc.order = append(sc.order, i)
	}
	slices.SortFunc(sc.order, func(a, b int) int { return cmp.Compare(sc.cursors[a].ub, sc.cursors[b].ub) })
	sc.cum = sc.cum[:0]
	sum := 0.0
	for _, i := range sc.order {
		sum += sc.cursors[i].ub
		sc.cum = append(sc.cum, sum)
	}
	sc.contrib = slices.Grow(sc.contrib[:0], n)[:n]
	sc.heap = sc.heap[:0]
}

// maxScore runs the document-at-a-time loop. Lists order[:ne] are
// non-essential: a passage found only in them cannot beat the k-th score.
func (ix *Index) maxScore(sc *scratch, bm bm25, k int) []Result {
	sc.prepare()
	// float32 sums of up to n rounded terms stay within this factor of the
	// exact sum.
	margin := 1 + float64(len(sc.cursors)+2)*0x1p-22
	theta, ne := math.Inf(-1), 0
	for {
		doc := sc.nextCandidate(ne)
		if doc == exhausted {
			break
		}
		d := &ix.docs[doc]
		if !sc.score(doc, ne, d, bm, theta, margin) {
			continue
		}
		var sum float32
		for _, c := range sc.contrib {
			sum += c
		}
		if !sc.offer(Result{ID: d.id, Score: sum}, k) {
			continue
		}
		theta = float64(sc.heap[0].Score)
		for ne < len(sc.order) && sc.cum[ne]*margin < theta {
			ne++
		}
	}
	return sc.heap.sorted()
}

// nextCandidate is the smallest current slot among the essential lists.
func (sc *scratch) nextCandidate(ne int) uint32 {
	doc := uint32(exhausted)
	for _, i := range sc.order[ne:] {
		doc = min(doc, sc.cursors[i].doc)
	}
	return doc
}

// score fills sc.contrib for slot doc, advancing the essential lists past it
// and probing the non-essential ones from the largest bound down. It returns
// false when doc is deleted or its bound falls below theta.
func (sc *scratch) score(doc uint32, ne int, d *docEntry, bm bm25, theta, margin float64) bool {
	clear(sc.contrib)
	partial := 0.0
	for _, i := range sc.order[ne:] {
		c := &sc.cursors[i]
		if c.doc != doc {
			continue
		}
		if d.alive {
			sc.contrib[i] = float32(bm.term(c.w, c.tf, d.length))
			partial += float64(sc.contrib[i])
		}
		c.next()
	}
	if !d.alive {
		return false
	}
	for j := ne - 1; j >= 0; j-- {
		if (partial+sc.cum[j])*margin < theta {
			return false
		}
		i := sc.order[j]
		c := &sc.cursors[i]
		rest := 0.0
		if j > 0 {
			rest = sc.cum[j-1]
		}
		if (partial+c.blockBound(doc, bm)+rest)*margin < theta {
			return false // block-max: the block that could hold doc scores too little
		}
		if c.seek(doc); c.doc == doc {
			sc.contrib[i] = float32(bm.term(c.w, c.tf, d.length))
			partial += float64(sc.contrib[i])
		}
	}
	return true
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
