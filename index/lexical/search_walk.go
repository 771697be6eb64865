package lexical

import "slices"

// A query of three to eight lists whose first list (the largest bound)
// outweighs the others is answered the way two answers two lists: once
// the exact scores of the passages in the first list's blocks whose
// bounds with the other lists' over their slots are largest (where the
// terms meet: walkBounds) put the k-th score held above the other lists'
// bounds together, every
// result holds the first list's term, so walk reads that list block by
// block, skips a block whenever its bound plus the other lists' bounds
// over its slots is below the k-th score held, and looks each passage it
// does not skip up in the other lists' flat copies, list by list,
// stopping once what it has plus what the rest can add over its slots
// falls below that score. pruned would read the first list through into
// partial sums, and the next ones until a stop.
//
// It is tried when the first list's bound is at least walkShare of the
// others' together (below that, the seeds seldom rule those lists out
// and cost more than they save) and the lists hold walkFrom postings or
// more. It gives way to pruned, as two does, when
// the seeds do not rule them out, when a list holds postings added since
// its flat copy (a list too short to keep one is copied for the search:
// flatFor), or when the first eighth of the first list projects
// more lookups than twoLookups allows. Interleaved with pruned in one
// process on the 1M real-text set (2,000 queries, each query's least CPU
// of 5 rounds): p50 -7% to -8% over six runs, queries of three lists
// median 436 -> 325 µs, four 330 -> 295, six 447 -> 363; sums of the
// classes -1% to -7% (docs/benchmarks/anchors-1m.md#s29).
//
// Scores are summed in cursor order from float32 0 as exhaustive sums
// them, ties go by id (offerOnce): results are exactly exhaustive's
// (TestWalkMatchesExhaustive).

// walkOff makes pruned answer every query of three or more lists (tests,
// benchmarks).
var walkOff = false

// walkShare is the least share of the other lists' summed bounds the
// first list's bound must reach for walk to be tried.
const walkShare = 0.5

// walkFrom is the number of postings, of all the lists together, from
// which walk is worth its seeds. Below it the partial sums stay in the
// core's caches and reading the lists costs less than looking passages
// up: on the 100k real-text set, at two's 32k, walk made the mean 4% and
// p90 9% slower; from 128k it seldom runs there (mean and p90 within
// 1%) and at 1M it gains as much (p50 -7.8%, mean -1.9%).
var walkFrom = 1 << 17

// maxWalk is the most lists walk takes.
const maxWalk = 8

// onWalk, when set (tests), is called when walk answers a query.
var onWalk func()

// walk is pruned for a query of three to maxWalk lists, and false when it
// gives way.
func (ix *Index) walk(sc *scratch, bm bm25, k int) ([]Result, bool) {
	n := len(sc.cursors)
	if walkOff || n < 3 || n > maxWalk {
		return nil, false
	}
	rest, total := 0.0, sc.cursors[0].p.n // the bounds of every list but the first; all postings
	for j := 1; j < n; j++ {
		rest, total = rest+sc.cursors[j].ub, total+sc.cursors[j].p.n
	}
	if sc.cursors[0].ub < walkShare*rest || total < walkFrom {
		return nil, false
	}
	flats := sc.walkFlats[:0]
	for i := range sc.cursors {
		c := &sc.cursors[i]
		f := ix.flatFor(c.p, &sc.shortFlats[i])
		if f == nil || tailed(c.p, f) {
			return nil, false
		}
		flats = append(flats, f)
	}
	sc.walkFlats = flats
	margin := 1 + float64(n+2)*0x1p-22
	var pos [maxWalk]at
	sc.heap = sc.heap[:0]
	a, fa, tab := &sc.cursors[0], flats[0], &sc.sat.v
	for _, bi := range sc.walkBounds(bm) { // seeds, scored exactly
		clear(pos[:n])
		for i, j := span(fa.slots, blockFrom(a.p, bi), a.p.blocks[bi].last+1); i < j; i++ {
			ca := float32(0) + float32(a.w*tab[fa.sat[i]&(satTFs*satLens-1)])
			sc.offerSlot(ix, fa.slots[i], ix.walkScore(sc, bm, fa.slots[i], pos[:n], 1, ca), k, true)
		}
	}
	if len(sc.heap) < k || rest*margin >= float64(sc.heap[0].Score) {
		sc.heap = sc.heap[:0]
		return nil, false // a passage without the first list's term may still enter
	}
	if !ix.walkPass(sc, bm, margin, k, total) {
		sc.heap = sc.heap[:0]
		return nil, false
	}
	if onWalk != nil {
		onWalk()
	}
	clear(pos[:n])
	for _, s := range fa.xslots { // the first list's postings beyond the table
		sc.offerSlot(ix, s, ix.walkScore(sc, bm, s, pos[:n], 0, 0), k, true)
	}
	return sc.heap.sorted(), true
}

// walkScore is slot s's exact score: sum, the contributions of the
// lists before from, plus those of the others, looked up from pos, added
// in cursor order as exhaustive adds them.
func (ix *Index) walkScore(sc *scratch, bm bm25, s uint32, pos []at, from int, sum float32) float32 {
	for j := from; j < len(sc.cursors); j++ {
		sum += ix.lookup(sc, bm, &sc.cursors[j], sc.walkFlats[j], s, &pos[j])
	}
	return sum
}

// walkPass offers sc.heap the passages of the first list's flat copy,
// block by block, skipping the blocks and the postings whose bound with
// the other lists' over their slots is below the k-th score held; false
// when the first eighth projects more lookups than twoLookups allows.
func (ix *Index) walkPass(sc *scratch, bm bm25, margin float64, k, total int) bool {
	n, flats := len(sc.cursors), sc.walkFlats
	a, fa, tab := &sc.cursors[0], flats[0], &sc.sat.v
	var pos [maxWalk]at
	i, lookups, check := 0, 0, len(a.p.blocks)/8
	for bi := range a.p.blocks {
		if bi == check && lookups*8 > total/twoLookups {
			return false // too many passages to look up: reading the lists costs less
		}
		bounds := sc.blockRest[bi*(n+1) : (bi+1)*(n+1)] // bounds[0]: the block's own
		lo, last := blockFrom(a.p, bi), a.p.blocks[bi].last
		i = gallop(fa.slots, i, lo)
		theta := float64(sc.heap[0].Score)
		if (bounds[0]+bounds[1])*margin < theta {
			continue
		}
		low := floor(theta, bounds[1], margin) // a passage below it cannot enter
		// The block's postings, read by their saturations (as twoPass).
		for sat := fa.sat[:gallop(fa.slots, i, last+1)]; i < len(sat); i++ {
			ca := float32(0) + float32(a.w*tab[sat[i]&(satTFs*satLens-1)])
			if ca < low {
				continue
			}
			s := fa.slots[i]
			lookups++
			if score, ok := ix.walkRest(sc, bm, s, ca, bounds[:n+1], pos[:n], margin, theta); ok {
				sc.offerSlot(ix, s, score, k, true)
				if th := float64(sc.heap[0].Score); th != theta { // an offer raised the k-th score
					theta, low = th, floor(th, bounds[1], margin)
				}
			}
		}
	}
	return true
}

// walkBounds fills sc.blockRest, n+1 bounds per block of the first list
// (n lists): the block's own, then for j from 1 the bound of the lists
// from j on over the block's slots (the last 0), and returns the
// seedBlocks blocks whose bounds with the others' are the largest, the
// largest first: where the query's terms meet.
func (sc *scratch) walkBounds(bm bm25) []int {
	n, a := len(sc.cursors), &sc.cursors[0]
	rest := slices.Grow(sc.blockRest[:0], len(a.p.blocks)*(n+1))[:len(a.p.blocks)*(n+1)]
	sc.blockRest = rest
	var blk [maxWalk]int // each other list's block at or after the slots
	var ub [seedBlocks]float64
	top := sc.topBlocks[:0]
	for bi := range a.p.blocks {
		b := rest[bi*(n+1) : (bi+1)*(n+1)]
		lo, last := blockFrom(a.p, bi), a.p.blocks[bi].last
		b[n] = 0
		for j := n - 1; j >= 1; j-- {
			b[j] = b[j+1] + sc.rangeBound(bm, &sc.cursors[j], &blk[j], lo, last)
		}
		b[0] = a.w * sc.sat.get(bm, a.p.blocks[bi].maxTF, a.p.blocks[bi].minLen)
		top = pushTop(top, &ub, bi, b[0]+b[1])
	}
	sc.topBlocks = top
	return top
}

// walkRest adds to ca, the first list's contribution to slot s, the other
// lists' (looked up from pos), in cursor order; false as soon as what it
// has plus their bounds over s's block (bounds) cannot reach theta.
func (ix *Index) walkRest(sc *scratch, bm bm25, s uint32, ca float32, bounds []float64, pos []at, margin, theta float64) (float32, bool) {
	score := ca
	for j := 1; j < len(pos); j++ {
		if (float64(score)+bounds[j])*margin < theta {
			return 0, false // what is left cannot lift it to the results
		}
		score += ix.lookup(sc, bm, &sc.cursors[j], sc.walkFlats[j], s, &pos[j])
	}
	return score, true
}

// rangeBound is the largest bound of c's blocks that may hold a slot in
// [lo, last], starting from block *b (moved to the first whose last slot
// is at least lo).
func (sc *scratch) rangeBound(bm bm25, c *cursor, b *int, lo, last uint32) float64 {
	blocks := c.p.blocks
	for *b < len(blocks) && blocks[*b].last < lo {
		*b++
	}
	ub := 0.0
	for x := *b; x < len(blocks); x++ {
		ub = max(ub, c.w*sc.sat.get(bm, blocks[x].maxTF, blocks[x].minLen))
		if blocks[x].last >= last {
			break
		}
	}
	return ub
}
