package lexical

// A query of one term (after the short-query rule drops its common stop
// words: "The property", "Member", "fork") ranks the passages of one list
// by that term's contribution alone. pruned read such a list through into
// the partial sums, then every touched slot at its stop and again to clear
// them: at 1M real-text passages these queries took a median 455 µs against
// Lucene's 139 µs, whose block-max scoring skips the blocks that cannot
// hold a result. one does the same: a block's largest tf at its shortest
// passage bounds its postings, the blocks with the largest bounds are
// scored first to fill the k best, and every other block is scored only
// when its bound reaches the k-th score held (docs/benchmarks/anchors-1m.md#s28).
//
// A posting's score is float32(w·sat), what exhaustive's partial sum of a
// one-list query is (0 plus that term), with sat read as exhaustive reads
// it, so results and scores are exactly exhaustive's, ties included
// (offer keeps the k best by score, then id, whatever the order they come
// in): TestOneListMatchesExhaustive.

// seedBlocks is how many blocks with the largest bounds one scores before
// the rest, to fill the k best with high scores before it tests the
// other blocks' bounds against them.
const seedBlocks = 4

// onOne, when set (tests), is told after each one how many of the
// list's blocks it skipped.
var onOne func(skipped, blocks int)

// one is pruned for a query of one list (sc.cursors[0]).
func (ix *Index) one(sc *scratch, bm bm25, k int) []Result {
	c := &sc.cursors[0]
	p := c.p
	margin := 1 + 3*0x1p-22 // as pruned's for one list: float32 rounding of the product
	sc.heap = sc.heap[:0]
	f := ix.flat(p)
	if f != nil {
		// The postings the flat copy keeps apart (a tf or a length beyond
		// the table): few, and often the highest scores.
		for i, s := range f.xslots {
			sc.offerSlot(ix, s, float32(c.w*bm.sat(f.xtf[i], ix.lens[s])), k, false)
		}
		sc.read += len(f.xslots)
	}
	ub := sc.blockUB[:0]
	for bi := range p.blocks {
		b := &p.blocks[bi]
		ub = append(ub, c.w*sc.sat.get(bm, b.maxTF, b.minLen)*margin)
	}
	sc.blockUB = ub
	for _, bi := range sc.bestBlocks(bm, c) {
		ix.scoreBlock(sc, bm, c, f, bi, 0, k)
		ub[bi] = -1 // scored
	}
	fi, skipped := 0, 0 // fi: where the next block's postings start in the flat copy, or before
	for bi, u := range ub {
		if u < 0 {
			continue
		}
		if len(sc.heap) == k && u < float64(sc.heap[0].Score) {
			skipped++
			continue
		}
		fi = ix.scoreBlock(sc, bm, c, f, bi, fi, k)
	}
	if onOne != nil {
		onOne(skipped, len(ub))
	}
	return sc.heap.sorted()
}

// scoreBlock offers sc.heap the postings of c's block bi: from the flat
// copy f (nil: none) those it holds, searching from its index fi on (at
// or before the block's first), decoded from the list those it does not
// hold (added since the copy). It returns the flat index after the
// block's postings.
func (ix *Index) scoreBlock(sc *scratch, bm bm25, c *cursor, f *flat, bi, fi, k int) int {
	p := c.p
	lo, last := uint32(0), p.blocks[bi].last
	if bi > 0 {
		lo = p.blocks[bi-1].last + 1
	}
	decodeFrom := lo // the slots from here on are read from the list
	if f != nil {
		decodeFrom = max(lo, f.end)
		fi = gallop(f.slots, fi, lo)
		tab, w := &sc.sat.v, c.w
		i := fi
		for ; i < len(f.slots) && f.slots[i] <= last; i++ {
			score := float32(w * tab[f.sat[i]&(satTFs*satLens-1)])
			if len(sc.heap) == k && score < sc.heap[0].Score {
				continue
			}
			sc.offerSlot(ix, f.slots[i], score, k, false)
		}
		sc.read += i - fi
		fi = i
		if last < decodeFrom {
			return fi
		}
	}
	var docs, tfs [blockSize]uint32
	n := p.decode(bi, &docs, &tfs)
	for j := range n {
		s := docs[j]
		if s < decodeFrom || ix.lens[s] == deadLen {
			continue
		}
		sc.offerSlot(ix, s, float32(c.w*sc.sat.get(bm, tfs[j], ix.lens[s])), k, false)
	}
	sc.read += n
	return fi
}

// offerSlot offers sc.heap slot s at score when it may enter the k best
// and the search's filter allows it; once when the heap may hold it
// already (two's and walk's seeds are met again on their walk).
func (sc *scratch) offerSlot(ix *Index, s uint32, score float32, k int, once bool) {
	if len(sc.heap) == k && score < sc.heap[0].Score || sc.allow != nil && !sc.allow(s) {
		return
	}
	if r := (Result{ID: ix.docs[s].id, Score: score}); once {
		sc.offerOnce(r, k)
	} else {
		sc.offer(r, k)
	}
}

// bestBlocks returns the seedBlocks blocks of c's list with the largest
// bounds, the largest first: the seeds of one and two.
func (sc *scratch) bestBlocks(bm bm25, c *cursor) []int {
	var ub [seedBlocks]float64
	top := sc.topBlocks[:0]
	for bi := range c.p.blocks {
		bl := &c.p.blocks[bi]
		top = pushTop(top, &ub, bi, sc.sat.get(bm, bl.maxTF, bl.minLen))
	}
	sc.topBlocks = top
	return top
}

// pushTop keeps in top the seedBlocks blocks with the largest bounds
// (ub, alongside), the largest first: it places block bi, of bound u,
// among them when it is larger than the last, and returns top.
func pushTop(top []int, ub *[seedBlocks]float64, bi int, u float64) []int {
	j := len(top)
	if j == seedBlocks {
		if u <= ub[j-1] {
			return top
		}
		j--
	} else {
		top = append(top, 0)
	}
	for ; j > 0 && ub[j-1] < u; j-- {
		top[j], ub[j] = top[j-1], ub[j-1]
	}
	top[j], ub[j] = bi, u
	return top
}
