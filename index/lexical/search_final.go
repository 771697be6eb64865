package lexical

// How a pruned search ends when it reads every list: the partial sums are
// then the scores.

// final returns the k best of the touched slots once every list is read:
// their partial sums are then their scores, exhaustive's (the heap's
// seeds among them), so it only selects, reading the segments of
// sc.touched down to the first whose bound is below the k-th score held,
// and zeroes the sums in the same pass (clearAcc then has nothing left),
// unless they are so many that clearAcc clears the whole accumulator.
// It replaced a last stop (bestPartial, rescores of the best, candidates,
// then clearAcc: three reads of the touched slots for one): at 1M
// real-text passages, interleaved with it, p50 −3.6%, mean −4.5%
// (docs/benchmarks/anchors-1m.md#s28).
func (sc *scratch) final(ix *Index, k int, margin float64) []Result {
	acc := sc.acc
	sc.heap = sc.heap[:0]
	zero := !sc.clearsWhole()
	sc.segBounds(margin)
	start := 0
	for j, end := range sc.segEnd {
		if len(sc.heap) == k && sc.segUB[j] < sc.heap[0].Score {
			// No slot from here on can enter the results (the bounds
			// fall from segment to segment): only clear them.
			if !zero {
				break
			}
			for _, s := range sc.touched[start:] {
				acc[s] = 0
			}
			break
		}
		for _, s := range sc.touched[start:end] {
			a := acc[s]
			if zero {
				acc[s] = 0
			}
			if (len(sc.heap) < k || a >= sc.heap[0].Score) && (sc.allow == nil || sc.allow(s)) {
				sc.offer(Result{ID: ix.docs[s].id, Score: a}, k)
			}
		}
		start = end
	}
	if zero {
		sc.touched = sc.touched[:0]
	}
	return sc.heap.sorted()
}

// finishEager makes pruned finish at every crowded stop (tests).
var finishEager = false

// finish scores the lists from cursor from on in full, as exhaustive does,
// and keeps the k best of every touched slot (final): the partial sums are
// those exhaustive makes, so are the results. pruned calls it at a crowded
// stop, whose θ is above the remaining lists' bound, so those lists only
// add to touched slots.
func (ix *Index) finish(sc *scratch, bm bm25, k, from int, margin, theta float64) []Result {
	for j := from; j < len(sc.cursors); j++ {
		sc.read += sc.cursors[j].p.n
		if cut(sc.rest[j], margin, theta) {
			sc.dropDead(floor(theta, sc.rest[j], margin), sc.cursors[j].p.n)
			ix.addTouched(&sc.cursors[j], sc, bm)
		} else {
			sc.touched = ix.addList(&sc.cursors[j], sc, sc.acc, sc.touched, bm, 0, exhausted)
		}
		sc.segEnd = append(sc.segEnd, len(sc.touched))
	}
	return sc.final(ix, k, margin)
}
