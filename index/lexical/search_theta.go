package lexical

import "math"

// What pruned knows of θ before it stops. A stop that fails (its θ too
// low for the remaining lists' bound, or too many candidates) has the exact
// scores of k passages: their k-th best θ is a lower bound of the final
// k-th best score, as any k real passages' k-th score is. These results stay
// in sc.heap for the next stop (seeds), so its θ never falls; bestPartial
// skips from the start every slot whose partial sum plus the remaining
// lists' bound cannot reach θ, and a passage the heap holds already is not
// rescored again. Once the bound of the lists from j on is below θ, no
// passage they have not touched so far can reach the results, and list j
// only adds to touched slots (addTouched): no new slots to write, clear and
// scan at the stops. Results stay exactly exhaustive's
// (TestMaxScoreMatchesExhaustive, TestThetaCutMatchesExhaustive).
//
// Tried and dropped: a θ₀ before the first list from "champions", each long
// list's 8 or 16 passages with the largest saturation, kept with its flat
// copy and rescored at the start of a search. On the 100k scale library
// their k-th score was a median 0.57 (8) or 0.75 (16) of the final θ against
// 0.60 for the first failed stop, and the rescores cost more than they
// saved: 2.36 M and 2.64 M instructions a search against 2.11 M without
// (docs/benchmarks/lexical.md#theta-seeds).

// onCut, when set (tests), is called for each list read into touched slots
// only.
var onCut func()

// cut reports whether the lists from cursor j on, whose summed bounds are
// rest, cannot lift a passage they alone hold to theta (0: not known).
func cut(rest, margin, theta float64) bool {
	return theta > 0 && rest*margin < theta
}

// holds reports whether sc.heap holds passage id (a linear scan: k < 50).
func (sc *scratch) holds(id uint64) bool {
	for _, h := range sc.heap {
		if h.ID == id {
			return true
		}
	}
	return false
}

// offerOnce is offer for a result whose passage sc.heap may hold already
// (a seed): it is not added twice.
func (sc *scratch) offerOnce(r Result, k int) bool {
	if len(sc.heap) == k && !better(r, sc.heap[0]) || sc.holds(r.ID) {
		return false
	}
	return sc.offer(r, k)
}

// addTouched adds c's contributions to the slots touched already (a
// partial sum above zero) and to no other, as addList would add them: the
// flat copy's postings (looked up slot by slot when the copy holds
// fewTouched times more postings than there are touched slots, read
// through otherwise), then those added since, decoded.
func (ix *Index) addTouched(c *cursor, sc *scratch, bm bm25) {
	if onCut != nil {
		onCut()
	}
	acc, lo := sc.acc, uint32(0)
	if f := ix.flat(c.p); f != nil {
		if f.rank.bits != nil && len(sc.touched)*rankTouched <= len(f.slots) {
			sc.addTableRanked(&sc.sat.v, c.w, f)
		} else if len(sc.touched)*fewTouched <= len(f.slots) {
			sc.addTableFew(&sc.sat.v, c.w, f.slots, f.sat)
		} else {
			addTableTouched(acc, &sc.sat.v, c.w, f.slots, f.sat)
		}
		for i, s := range f.xslots {
			if v := acc[s]; v != 0 {
				acc[s] = v + float32(c.w*bm.sat(f.xtf[i], ix.lens[s]))
			}
		}
		lo = f.end
	}
	var docs, tfs [blockSize]uint32
	for bi := range c.p.blocks {
		if c.p.blocks[bi].last < lo {
			continue
		}
		for j := range c.p.decode(bi, &docs, &tfs) {
			s := docs[j]
			if s < lo || acc[s] == 0 || ix.lens[s] == deadLen {
				continue
			}
			acc[s] += float32(c.w * sc.sat.get(bm, tfs[j], ix.lens[s]))
		}
	}
}

// addTableTouched is addTable for the slots touched already: it adds
// w·tab[sat[i]] to acc[slots[i]] where that is above zero. Without a branch:
// on a common word about as many slots are touched as not, and a branch on
// it mispredicted so often that cutting made BenchmarkBM25RealLibrary
// slower (100k library, k 20: 406-467 µs against 362-382 without cutting);
// a mask on the contribution's bits compiles to conditional moves.
func addTableTouched(acc []float32, tab *[satTFs * satLens]float64, w float64, slots []uint32, sat []uint16) {
	sat = sat[:len(slots)]
	for i, s := range slots {
		v := acc[s]
		m := uint32(0)
		if v != 0 {
			m = ^uint32(0)
		}
		c := math.Float32bits(float32(w*tab[sat[i]&(satTFs*satLens-1)])) & m
		acc[s] = v + math.Float32frombits(c) // v + 0 leaves an untouched slot 0
	}
}

// dropDead takes out of sc.touched, keeping the order and the segments
// (sc.segEnd), every slot whose partial sum is below low, floor(θ, r) with
// r the bounds of the lists not read yet and θ a score the results' k-th
// will reach: none of them can reach the results, whatever those lists
// add. Their partial sums become 0, untouched, so the lists read from here
// on, which add only to touched slots (the cut holds for every later list:
// θ only rises and r falls), leave them out, and so do the stops. The
// heap's k passages, whose exact scores make θ, are never dropped. It does
// nothing when the list about to be read, of n postings, is shorter than
// the touched slots: what it would save is reading that list through.
//
// Dropping is what lets addTouched look the live slots up (addTableFew)
// rather than read a long list through: on the 1M real-text set, each
// query's least CPU of 5 rounds, the two interleaved in one process, p50
// −13%, mean −4% (docs/benchmarks/anchors-1m.md#s27).
func (sc *scratch) dropDead(low float32, n int) {
	if low <= 0 || n < len(sc.touched) {
		return
	}
	acc, kept, start := sc.acc, 0, 0
	for j, end := range sc.segEnd {
		for _, s := range sc.touched[start:end] {
			if acc[s] < low {
				acc[s] = 0
				continue
			}
			sc.touched[kept] = s
			kept++
		}
		start, sc.segEnd[j] = end, kept
	}
	sc.touched = sc.touched[:kept]
}

// fewTouched is how many postings a flat list holds per touched slot from
// which addTouched looks the slots up in it rather than reading it
// through (a variable for tests).
var fewTouched = 8

// onFew, when set (tests), is told of each addTableFew and how many times
// it started its search over (a touched slot below the one before).
var onFew func(restarts int)

// addTableFew is addTableTouched for few touched slots: it looks each one
// up in slots (ascending) by galloping from the last found, and adds
// w·tab[sat[i]] to the partial sums above zero: the same float32 sums.
// sc.touched is ascending in runs (a list's flat slots, then its others
// and its tail, list after list), so a slot below the one before starts
// the search over.
func (sc *scratch) addTableFew(tab *[satTFs * satLens]float64, w float64, slots []uint32, sat []uint16) {
	acc, i, prev, restarts := sc.acc, 0, uint32(0), 0
	sat = sat[:len(slots)]
	for _, s := range sc.touched {
		if s < prev {
			i, restarts = 0, restarts+1
		}
		prev = s
		if i = gallop(slots, i, s); i < len(slots) && slots[i] == s {
			if v := acc[s]; v != 0 {
				acc[s] = v + float32(w*tab[sat[i]&(satTFs*satLens-1)])
			}
		}
	}
	if onFew != nil {
		onFew(restarts)
	}
}

// addTableRanked is addTableFew for a flat copy with a rank: each touched
// slot is looked up in it.
func (sc *scratch) addTableRanked(tab *[satTFs * satLens]float64, w float64, f *flat) {
	acc := sc.acc
	for _, s := range sc.touched {
		if i, ok := f.rank.index(s); ok {
			if v := acc[s]; v != 0 {
				acc[s] = v + float32(w*tab[f.sat[i]&(satTFs*satLens-1)])
			}
		}
	}
}

// gallop returns the first index from i on whose slot is at least s
// (len(slots) if none), slots[:i] all below s: steps doubling from i,
// then a binary search within the last.
func gallop(slots []uint32, i int, s uint32) int {
	if i >= len(slots) || slots[i] >= s {
		return i
	}
	step := 1
	for i+step < len(slots) && slots[i+step] < s {
		i += step
		step *= 2
	}
	lo, hi := i+1, min(i+step, len(slots)) // slots[i] < s; slots[hi] ≥ s or hi is the end
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if slots[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
