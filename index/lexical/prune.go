package lexical

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Costs in nanoseconds on the 100k scale library (SciFact claims), used to
// choose between scoring another posting list and rescoring candidates:
// a posting scored term at a time, and a passage rescored from its packed
// terms (per packed term, and per passage).
const (
	postingCost = 7
	packedCost  = 3
	rescoreCost = 50
)

// pruned scores the query's posting lists term at a time into partial sums,
// the lists with the largest bounds first, and stops before the rest once
// they cannot matter: when their summed bounds R fall below the k-th best
// exact score θ of the passages with the best partial sums, no passage
// untouched so far can reach the results, and only touched passages whose
// partial sum plus R reaches θ are candidates. It stops when rescoring those
// candidates from their packed terms costs less than scoring the remaining
// lists. Common words (long lists with low idf) are then never read.
//
// Every score returned is recomputed from the passage's packed terms, the
// query terms in sorted order, so results and scores are exactly those of
// exhaustive (TestMaxScoreMatchesExhaustive); partial sums, added in
// another order, serve only as bounds, with a margin for float rounding
// (float32 sums of up to n rounded terms stay within it of the exact sum).
func (ix *Index) pruned(sc *scratch, bm bm25, k int) []Result {
	if len(sc.acc) < len(ix.docs) {
		sc.acc = make([]float32, len(ix.docs)+len(ix.docs)/4)
	}
	sc.prepareRescore()
	n := len(sc.cursors)
	// order by descending bound; rest[j], restPost[j]: bounds and postings
	// of order[j:].
	slices.Reverse(sc.order)
	rest := slices.Grow(sc.rest[:0], n+1)[:n+1]
	restPost := slices.Grow(sc.restPost[:0], n+1)[:n+1]
	sc.rest, sc.restPost = rest, restPost
	rest[n], restPost[n] = 0, 0
	for j := n - 1; j >= 0; j-- {
		c := &sc.cursors[sc.order[j]]
		rest[j], restPost[j] = rest[j+1]+c.ub, restPost[j+1]+c.p.n
	}
	margin := 1 + float64(n+2)*0x1p-22
	fwd := rescoreCost + packedCost*ix.livePost/max(ix.alive, 1)
	sc.touched = sc.touched[:0]
	defer sc.clearAcc()
	// After a failed check: the θ it found, and the bound at which it found
	// too many candidates. The next check waits until it could succeed.
	theta, crowded := 0.0, -1.0
	for j, i := range sc.order {
		sc.touched = ix.addList(&sc.cursors[i], sc.acc, sc.touched, bm, 0, exhausted)
		r, last := rest[j+1], j == n-1
		if !last && !pruneEager && (len(sc.touched) < k || restPost[j+1]*postingCost <= len(sc.touched)*2+k*fwd ||
			r*margin >= theta && theta > 0 || crowded >= 0 && r > crowded*0.7) {
			continue
		}
		st := ix.tryStop(sc, bm, k, sc.order[j+1:], r, margin, last, restPost[j+1]*postingCost/fwd)
		if st.stopped {
			return sc.heap.sorted()
		}
		theta = st.theta
		if st.crowded {
			crowded = r
		}
	}
	return sc.heap.sorted() // not reached: the last tryStop is forced
}

// stop is what tryStop found.
type stop struct {
	stopped bool
	theta   float64 // the k-th best exact score of the best partial sums
	crowded bool    // more candidates than allowed
}

// tryStop rescores the k passages with the best partial sums, and when the
// bound r of the remaining lists (times margin) is below the k-th of those
// scores and at most maxCand candidates remain (any number when force),
// rescores the candidates into sc.heap and stops. A candidate is a touched
// passage whose partial sum plus the bound of the remaining lists for its
// length (their largest tf at its length) reaches the k-th best score.
func (ix *Index) tryStop(sc *scratch, bm bm25, k int, remaining []int, r, margin float64, force bool, maxCand int) stop {
	acc := sc.acc
	sc.heap = sc.heap[:0]
	best := sc.best[:0]
	for _, s := range sc.touched {
		if len(best) < k || acc[s] > best[0].Score {
			best = pushBest(best, Result{ID: uint64(s), Score: acc[s]}, k)
		}
	}
	sc.best = best
	for _, b := range best {
		sc.offer(ix.rescore(sc, uint32(b.ID), bm), k)
	}
	var theta float64
	if len(sc.heap) == k {
		theta = float64(sc.heap[0].Score)
	}
	// bound is an upper bound of slot s's score given its partial sum a.
	bound := func(s uint32, a float32) float64 {
		rd, length := 0.0, ix.lens[s]
		for _, i := range remaining {
			c := &sc.cursors[i]
			rd += bm.term(c.w, c.maxTF, length)
		}
		return (float64(a) + rd) * margin
	}
	if !force {
		if len(sc.heap) < k || r*margin >= theta {
			sc.heap = sc.heap[:0]
			return stop{theta: theta}
		}
		cand := 0
		for _, s := range sc.touched {
			if a := acc[s]; (float64(a)+r)*margin >= theta && bound(s, a) >= theta {
				cand++
			}
		}
		if cand > maxCand+k && !pruneEager {
			sc.heap = sc.heap[:0]
			return stop{theta: theta, crowded: true}
		}
	}
	for _, b := range best {
		acc[b.ID] = -1 // rescored already
	}
	full := len(sc.heap) == k
	for _, s := range sc.touched {
		a := acc[s]
		if a < 0 || full && ((float64(a)+r)*margin < float64(sc.heap[0].Score) || bound(s, a) < float64(sc.heap[0].Score)) {
			continue
		}
		if sc.offer(ix.rescore(sc, s, bm), k) {
			full = true
		}
	}
	return stop{stopped: true}
}

// pushBest keeps the k largest partial sums in h, a min-heap on Score
// (ties in any order: these only choose whom to rescore first).
func pushBest(h []Result, r Result, k int) []Result {
	if len(h) < k {
		h = append(h, r)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p].Score <= h[i].Score {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		return h
	}
	h[0] = r
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		if l+1 < len(h) && h[l+1].Score < h[l].Score {
			l++
		}
		if h[i].Score <= h[l].Score {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	return h
}

// prepareRescore lists the query's term ids with their cursors, by term id
// (the order of a passage's packed terms), and sizes sc.contrib.
func (sc *scratch) prepareRescore() {
	sc.qterms = sc.qterms[:0]
	for i := range sc.cursors {
		sc.qterms = append(sc.qterms, qterm{term: sc.cursors[i].term, cursor: i})
	}
	slices.SortFunc(sc.qterms, func(a, b qterm) int { return cmp.Compare(a.term, b.term) })
	n := len(sc.cursors)
	sc.contrib = slices.Grow(sc.contrib[:0], n)[:n]
	clear(sc.contrib)
	sc.order = sc.order[:0]
	for i := range n {
		sc.order = append(sc.order, i)
	}
	slices.SortFunc(sc.order, func(a, b int) int { return cmp.Compare(sc.cursors[a].ub, sc.cursors[b].ub) })
}

// qterm is a query term's id and the index of its cursor.
type qterm struct {
	term   uint32
	cursor int
}

// rescore is the exact score of slot s from its packed terms: the
// contributions of the query terms it holds, summed in cursor (sorted term)
// order as float32, as exhaustive sums them.
func (ix *Index) rescore(sc *scratch, s uint32, bm bm25) Result {
	d := &ix.docs[s]
	b, term, q, qt := d.terms, uint32(0), 0, sc.qterms
	// The format of packTerms, decoded by index with one- and two-byte fast
	// paths (term deltas are mostly two bytes, tfs one): binary.Uvarint is
	// not inlined, and this loop is most of a rescore.
	for pos := 0; pos < len(b) && q < len(qt); {
		dt := uint32(b[pos])
		switch {
		case dt < 0x80:
			pos++
		case pos+1 < len(b) && b[pos+1] < 0x80:
			dt, pos = dt&0x7f|uint32(b[pos+1])<<7, pos+2
		default:
			v, n := binary.Uvarint(b[pos:])
			dt, pos = uint32(v), pos+n
		}
		tf := uint32(b[pos])
		if tf < 0x80 {
			pos++
		} else {
			v, n := binary.Uvarint(b[pos:])
			tf, pos = uint32(v), pos+n
		}
		term += dt
		for q < len(qt) && qt[q].term < term {
			q++
		}
		if q < len(qt) && qt[q].term == term {
			c := qt[q].cursor
			sc.contrib[c] = float32(bm.term(sc.cursors[c].w, tf, d.length))
			q++
		}
	}
	var sum float32
	for i, c := range sc.contrib {
		sum += c
		sc.contrib[i] = 0
	}
	return Result{ID: d.id, Score: sum}
}

// clearAcc zeroes the partial sums of the touched slots.
func (sc *scratch) clearAcc() {
	for _, s := range sc.touched {
		sc.acc[s] = 0
	}
}
