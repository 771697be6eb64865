package lexical

import "math"

// deadLen marks a deleted slot in Index.lens.
const deadLen = math.MaxUint32

// exhaustive scores every posting of the query terms, term at a time, into a
// per-slot accumulator: the terms in sorted order, so each passage's float32
// sum is exactly the one the pruned loop computes. It then keeps the k best.
// It reads passage lengths from the dense lens, not from docs: the loop is
// bound by memory traffic, and a 4-byte length per slot is a twelfth of a
// docEntry.
func (ix *Index) exhaustive(sc *scratch, bm bm25, k int) []Result {
	if len(sc.acc) < len(ix.docs) {
		sc.acc = make([]float32, len(ix.docs)+len(ix.docs)/4)
	}
	acc, touched, lens := sc.acc, sc.touched[:0], ix.lens
	for i := range sc.cursors {
		c := &sc.cursors[i]
		for bi := range c.p.blocks {
			n := c.p.decode(bi, &c.docs, &c.tfs)
			for j, s := range c.docs[:n] {
				length := lens[s]
				if length == deadLen {
					continue
				}
				v := acc[s]
				if v == 0 { // contributions are positive: 0 means untouched
					touched = append(touched, s)
				}
				acc[s] = v + float32(bm.term(c.w, c.tfs[j], length))
			}
		}
	}
	sc.heap = sc.heap[:0]
	for _, s := range touched {
		if len(sc.heap) < k || acc[s] >= sc.heap[0].Score { // cheap reject first
			sc.offer(Result{ID: ix.docs[s].id, Score: acc[s]}, k)
		}
		acc[s] = 0
	}
	sc.touched = touched
	return sc.heap.sorted()
}
