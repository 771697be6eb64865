package lexical

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// deadLen marks a deleted slot in Index.lens.
const deadLen = math.MaxUint32

// splitFrom is the number of postings from which an exhaustive search on an
// otherwise idle index is split across CPUs by slot range (a variable for
// tests).
var splitFrom = 1 << 15

// exhaustive scores every posting of the query terms, term at a time, into a
// per-slot accumulator: the terms in cursor order, so each passage's float32
// sum is exactly the one the pruned loop computes. It then keeps the k best.
//
// When no other search is running and the lists are long, the slots are cut
// into ranges scored concurrently (each range's sums are still made in term
// order, and the k best of the whole are among the ranges' k best, so the
// results are the same): a lone query's latency then shrinks with the CPUs,
// while under concurrent load every search stays on one CPU.
func (ix *Index) exhaustive(sc *scratch, bm bm25, k int) []Result {
	sc.accFor(len(ix.docs))
	total := 0
	for i := range sc.cursors {
		total += sc.cursors[i].p.n
	}
	sc.read = total
	parts := min(runtime.GOMAXPROCS(0), 4)
	if parts < 2 || total < splitFrom || ix.searching.Load() > 1 {
		sc.heap = ix.scoreRange(sc, bm, k, 0, exhausted, sc.heap[:0])
		return sc.heap.sorted()
	}
	for i := range sc.cursors { // once here rather than in every range
		ix.flat(sc.cursors[i].p)
	}
	n := uint32(len(ix.docs))
	heaps := make([]resultHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n/uint32(parts)*uint32(p), n/uint32(parts)*uint32(p+1)
		if p == parts-1 {
			hi = exhausted
		}
		if len(sc.parts) <= p {
			sc.parts = append(sc.parts, new(scratch))
		}
		part := sc.parts[p]
		part.cursors, part.acc, part.sat, part.allow = sc.cursors, sc.acc, sc.sat, sc.allow
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps[p] = ix.scoreRange(part, bm, k, lo, hi, part.heap[:0])
		}()
	}
	wg.Wait()
	sc.heap = sc.heap[:0]
	for _, h := range heaps {
		for _, r := range h {
			sc.offer(r, k)
		}
	}
	return sc.heap.sorted()
}

// scoreRange scores the postings of sc's cursors with slots in [lo, hi) into
// sc.acc (leaving it zero again) and returns the k best, as a heap appended
// to h. Calls on disjoint ranges may run concurrently.
func (ix *Index) scoreRange(sc *scratch, bm bm25, k int, lo, hi uint32, h resultHeap) resultHeap {
	acc, touched := sc.acc, sc.touched[:0]
	for i := range sc.cursors {
		touched = ix.addList(&sc.cursors[i], sc, acc, touched, bm, lo, hi)
	}
	sc.heap = h
	for _, s := range touched {
		if (len(sc.heap) < k || acc[s] >= sc.heap[0].Score) && (sc.allow == nil || sc.allow(s)) { // cheap reject first
			sc.offer(Result{ID: ix.docs[s].id, Score: acc[s]}, k)
		}
		acc[s] = 0
	}
	sc.touched = touched
	return sc.heap
}

// addList adds the contributions of c's postings with slots in [lo, hi)
// to acc and appends the slots it touches first to touched, which it
// returns. The contributions are bm.term's, the saturation read from
// sc.sat when the table holds it. A long list is read from its flat copy
// (search_flat.go) and the postings added since the copy was made decoded here,
// as are the others.
func (ix *Index) addList(c *cursor, sc *scratch, acc []float32, touched []uint32, bm bm25, lo, hi uint32) []uint32 {
	if f := ix.flat(c.p); f != nil {
		touched = ix.addFlat(f, acc, touched, &sc.sat.v, bm, c.w, lo, min(hi, f.end))
		if hi <= f.end {
			return touched
		}
		lo = max(lo, f.end) // the postings added since the copy, below
	}
	lens, base, per, w, tab := ix.lens, bm.base, bm.per, c.w, &sc.sat.v
	b, doc, left, rest := c.p.from(lo)
	// Room for every posting, so the append below needs no check: a
	// branch on whether a slot was touched before mispredicts about as
	// often as not on common words.
	touched = slices.Grow(touched, left+rest)
	nt := len(touched)
	touched = touched[:cap(touched)]
	// Decoded by index: 10-20% faster than reslicing b per posting.
	pos := 0
	for ; left > 0 || rest > 0; left-- {
		if left == 0 { // a part read, on to the next (postings.part)
			b, left = c.p.part((c.p.n - rest) / blockSize)
			pos, rest = 0, rest-left
		}
		d, tf, n := uint32(b[pos]), uint32(b[pos+1]), 2 // see posting
		if d|tf >= 0x80 {
			d, tf, n = posting(b[pos:])
		}
		pos += n
		doc += d
		if doc < lo {
			continue
		}
		if doc >= hi {
			break
		}
		length := lens[doc]
		if length == deadLen {
			continue
		}
		var s float64
		if i := (tf-1)*satLens + length; tf-1 < satTFs && length < satLens {
			s = tab[i]
		} else { // bm.sat, spelled out with the fields in locals
			f := float64(tf)
			s = f / (f + base + per*float64(length))
		}
		v := acc[doc]
		touched[nt] = doc
		if v == 0 { // contributions are positive: 0 means untouched
			nt++
		}
		acc[doc] = v + float32(w*s)
	}
	return touched[:nt]
}

// from returns where decoding must start to reach the first posting with
// slot ≥ lo: the bytes of the block that may hold it, the slot its deltas
// count from, the postings left from there in those bytes and the
// postings after them, in the list's later parts (postings.part).
func (p *postings) from(lo uint32) (data []byte, base uint32, left, rest int) {
	bi := sort.Search(len(p.blocks), func(i int) bool { return p.blocks[i].last >= lo })
	if bi == len(p.blocks) {
		return nil, 0, 0, 0
	}
	if bi > 0 {
		base = p.blocks[bi-1].last
	}
	data, left = p.part(bi)
	return data, base, left, p.n - bi*blockSize - left
}
