package lexical

// exhaustive scores every posting of the query terms, term at a time, into a
// per-slot accumulator: the terms in sorted order, so each passage's float32
// sum is exactly the one the pruned loop computes. It then keeps the k best.
func (ix *Index) exhaustive(sc *scratch, bm bm25, k int) []Result {
	if len(sc.acc) < len(ix.docs) {
		sc.acc = make([]float32, len(ix.docs)+len(ix.docs)/4)
	}
	acc, touched := sc.acc, sc.touched[:0]
	for i := range sc.cursors {
		c := &sc.cursors[i]
		for bi := range c.p.blocks {
			n := c.p.decode(bi, &c.docs, &c.tfs)
			for j, s := range c.docs[:n] {
				d := &ix.docs[s]
				if !d.alive {
					continue
				}
				if acc[s] == 0 { // contributions are positive: 0 means untouched
					touched = append(touched, s)
				}
				acc[s] += float32(bm.term(c.w, c.tfs[j], d.length))
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
