package lexical

import (
	"encoding/binary"
	"math"
)

// deadLen marks a deleted slot in Index.lens.
const deadLen = math.MaxUint32

// exhaustive scores every posting of the query terms, term at a time, into a
// per-slot accumulator: the terms in sorted order, so each passage's float32
// sum is exactly the one the pruned loop computes. It then keeps the k best.
//
// The loop is bound by memory traffic, so it decodes each list in one pass
// (no per-block arrays) and reads passage lengths from the dense lens, a
// twelfth of a docEntry.
func (ix *Index) exhaustive(sc *scratch, bm bm25, k int) []Result {
	if len(sc.acc) < len(ix.docs) {
		sc.acc = make([]float32, len(ix.docs)+len(ix.docs)/4)
	}
	acc, touched, lens := sc.acc, sc.touched[:0], ix.lens
	for i := range sc.cursors {
		c := &sc.cursors[i]
		b, doc := c.p.data, uint32(0)
		for range c.p.n {
			// The format of postings.add; one-byte fast paths as in decode.
			d := uint32(b[0])
			if d < 0x80 {
				b = b[1:]
			} else {
				v, n := binary.Uvarint(b)
				d, b = uint32(v), b[n:]
			}
			tf := uint32(b[0])
			if tf < 0x80 {
				b = b[1:]
			} else {
				v, n := binary.Uvarint(b)
				tf, b = uint32(v), b[n:]
			}
			doc += d
			length := lens[doc]
			if length == deadLen {
				continue
			}
			v := acc[doc]
			if v == 0 { // contributions are positive: 0 means untouched
				touched = append(touched, doc)
			}
			acc[doc] = v + float32(bm.term(c.w, tf, length))
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
