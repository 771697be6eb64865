package lexical

// A query of two lists (after the short-query rule: "Member Data",
// "Class Summary", "def Boolean") read the first list in full into the
// partial sums, then, once a stop's θ showed that the second list alone
// cannot reach the results, added the second to them, read through: at 1M
// real-text passages the weakest kind of query against Lucene (2.8× at the
// median). two scores such a query passage by passage along the first list
// instead, block by block, and skips a block of it whenever its bound plus
// the second list's bound over the same slots is below the k-th score
// held; a passage it does not skip looks its second term up in the second
// list's flat copy, from where the last one was found. Interleaved with
// pruned in one process at 1M real-text passages: the 328 two-list queries
// of 2,000 median 433 -> 283 µs (their sum -39%), all 2,000 p50 334 -> 289
// µs (docs/benchmarks/anchors-1m.md#s28).
//
// Passages only in the second list are left out once the exact scores of
// the passages in both lists' best blocks (its seeds) put the k-th score
// held above the second list's bound; if they do not, or a list holds
// postings added since its flat copy, or the first eighth of the first
// list needs more lookups than twoLookups allows (two common words of the
// same pages: reading both lists through costs less), two gives way to
// pruned. Scores are float32(float32(first) + second) as exhaustive adds
// them, ties go by id (offerOnce), so results are exactly exhaustive's
// (TestTwoListsMatchExhaustive).

// twoOff makes a query of two lists go the way of the others (tests,
// benchmarks).
var twoOff = false

// twoFrom is the number of postings from which two is worth its seeds,
// and twoLookups the share of the two lists' postings it may look up,
// projected from the first eighth of the first list, before it gives way.
var twoFrom, twoLookups = 1 << 15, 8

// onTwo, when set (tests), is called when two answers a query.
var onTwo func()

// two is pruned for a query of two lists, and false when it gives way.
func (ix *Index) two(sc *scratch, bm bm25, k int) ([]Result, bool) {
	a, b := &sc.cursors[0], &sc.cursors[1]
	if twoOff || a.p.n+b.p.n < twoFrom {
		return nil, false
	}
	fa, fb := ix.flatFor(a.p, &sc.shortFlats[0]), ix.flatFor(b.p, &sc.shortFlats[1])
	if fa == nil || fb == nil || tailed(a.p, fa) || tailed(b.p, fb) {
		return nil, false
	}
	margin := 1 + 4*0x1p-22
	sc.heap = sc.heap[:0]
	tab := &sc.sat.v
	// Seeds: the passages of each list's best blocks, scored exactly.
	var pa, pb at
	for _, bi := range sc.bestBlocks(bm, a) {
		for i, j := span(fa.slots, blockFrom(a.p, bi), a.p.blocks[bi].last+1); i < j; i++ {
			s := fa.slots[i]
			sc.offerTwo(ix, s, float32(a.w*tab[fa.sat[i]&(satTFs*satLens-1)]), ix.lookup(sc, bm, b, fb, s, &pb), k)
		}
	}
	for _, bi := range sc.bestBlocks(bm, b) {
		for i, j := span(fb.slots, blockFrom(b.p, bi), b.p.blocks[bi].last+1); i < j; i++ {
			s := fb.slots[i]
			sc.offerTwo(ix, s, ix.lookup(sc, bm, a, fa, s, &pa), float32(b.w*tab[fb.sat[i]&(satTFs*satLens-1)]), k)
		}
	}
	if len(sc.heap) < k || b.ub*margin >= float64(sc.heap[0].Score) {
		sc.heap = sc.heap[:0]
		return nil, false // a passage of the second list alone may still enter
	}
	if !ix.twoPass(sc, bm, a, b, fa, fb, margin, k) {
		sc.heap = sc.heap[:0]
		return nil, false
	}
	if onTwo != nil {
		onTwo()
	}
	pb = at{}
	for i, s := range fa.xslots { // the first list's postings beyond the table
		ca := float32(a.w * bm.sat(fa.xtf[i], ix.lens[s]))
		sc.offerTwo(ix, s, ca, ix.lookup(sc, bm, b, fb, s, &pb), k)
	}
	return sc.heap.sorted(), true
}

// twoPass offers sc.heap the passages of a's flat copy fa, block by
// block of a's list, skipping the blocks and the postings whose bound
// with b's over their slots is below the k-th score held.
func (ix *Index) twoPass(sc *scratch, bm bm25, a, b *cursor, fa, fb *flat, margin float64, k int) bool {
	tab := &sc.sat.v
	i, bj := 0, 0 // next flat index of a; b's block at or after the slots
	var pb at
	lookups, check := 0, len(a.p.blocks)/8
	for bi := range a.p.blocks {
		if bi == check && lookups*8 > (a.p.n+b.p.n)/twoLookups {
			return false // too many passages to look up: reading the lists costs less
		}
		lo, last := blockFrom(a.p, bi), a.p.blocks[bi].last
		for bj < len(b.p.blocks) && b.p.blocks[bj].last < lo {
			bj++
		}
		ubB := 0.0 // b's bound over [lo, last]
		for x := bj; x < len(b.p.blocks); x++ {
			ubB = max(ubB, b.w*sc.sat.get(bm, b.p.blocks[x].maxTF, b.p.blocks[x].minLen))
			if b.p.blocks[x].last >= last {
				break
			}
		}
		ub := a.w * sc.sat.get(bm, a.p.blocks[bi].maxTF, a.p.blocks[bi].minLen)
		i = gallop(fa.slots, i, lo)
		if (ub+ubB)*margin < float64(sc.heap[0].Score) {
			continue
		}
		theta := sc.heap[0].Score
		low := floor(float64(theta), ubB, margin) // a passage below it cannot enter
		// The block's postings end where its last slot's do: found once,
		// the loop reads only their saturations until one may enter.
		for sat := fa.sat[:gallop(fa.slots, i, last+1)]; i < len(sat); i++ {
			ca := float32(a.w * tab[sat[i]&(satTFs*satLens-1)])
			if ca < low {
				continue
			}
			s := fa.slots[i]
			lookups++
			sc.offerTwo(ix, s, ca, ix.lookup(sc, bm, b, fb, s, &pb), k)
			if th := sc.heap[0].Score; th != theta { // an offer raised the k-th score
				theta, low = th, floor(float64(th), ubB, margin)
			}
		}
	}
	return true
}

// offerTwo offers sc.heap slot s with contributions ca and cb (0: the
// list does not hold it), summed as exhaustive sums them, once.
func (sc *scratch) offerTwo(ix *Index, s uint32, ca, cb float32, k int) {
	score := float32(0) + ca
	score += cb
	sc.offerSlot(ix, s, score, k, true)
}

// at is where a walk of ascending slots has got to in a flat copy: the
// index in its slots and in its postings beyond the table.
type at struct{ i, x int }

// lookup is c's contribution to slot s (0 when its list does not hold
// it), looked up in its flat copy f, which holds all of c's postings
// (tailed is false): in f's rank when it has one, otherwise galloping on
// from p, which it moves to s (back to the start when s is below where p
// stands); p also tracks the postings beyond the table.
func (ix *Index) lookup(sc *scratch, bm bm25, c *cursor, f *flat, s uint32, p *at) float32 {
	if p.i > 0 && f.slots[p.i-1] >= s || p.x > 0 && f.xslots[p.x-1] >= s {
		*p = at{}
	}
	if f.rank.bits != nil {
		if i, ok := f.rank.index(s); ok {
			return float32(c.w * sc.sat.v[f.sat[i]&(satTFs*satLens-1)])
		}
	} else {
		p.i = gallop(f.slots, p.i, s)
		if p.i < len(f.slots) && f.slots[p.i] == s {
			return float32(c.w * sc.sat.v[f.sat[p.i]&(satTFs*satLens-1)])
		}
	}
	if len(f.xslots) == 0 {
		return 0
	}
	p.x = gallop(f.xslots, p.x, s)
	if p.x < len(f.xslots) && f.xslots[p.x] == s {
		return float32(c.w * bm.sat(f.xtf[p.x], ix.lens[s]))
	}
	return 0
}

// tailed reports whether p holds postings its flat copy f does not.
func tailed(p *postings, f *flat) bool {
	return len(p.blocks) > 0 && p.blocks[len(p.blocks)-1].last >= f.end
}

// blockFrom is the first slot block bi of p can hold.
func blockFrom(p *postings, bi int) uint32 {
	if bi == 0 {
		return 0
	}
	return p.blocks[bi-1].last + 1
}
