package lexical

import "math/bits"

// A lookup — is slot s in this list, and where in its flat copy — is what
// two and walk do for every passage they do not skip, and what pruned
// does for its touched passages when a list adds only to them. Galloping
// through a flat copy's slots made it a chain of dependent loads and
// mispredicted branches: 22% of the median queries' CPU at 1M real-text
// passages. A dense list's flat copy therefore keeps a rank: one bit per
// passage slot and a running count, so that a lookup is two loads and
// four population counts, without a branch on the data. Interleaved with
// the gallop in one process at 1M real-text passages (2,000 queries × 5
// rounds, each query's least CPU): p50 −16%, mean −8%; at 100k p50 −6%,
// mean −5% (docs/benchmarks/anchors-1m.md#s30).

// rankDensity: a flat copy of a list in at least 1/rankDensity of the
// passages keeps a rank. The rank costs an eighth of a byte per passage
// slot, as much as the copy's slots (four bytes a posting) at that
// density and less above it; at 1M real-text passages the copies made by
// 2,000 queries took 275 MB and their ranks 55 MB (1/128: 126 MB, for
// p50 1% lower; 1/8: 9 MB, p50 4% higher). A variable for tests.
var rankDensity = 32

// rankTouched: pruned adds a list with a rank to its touched slots by
// looking each up when the list holds rankTouched times as many postings
// or more (fewTouched for a gallop), and reads the list through
// otherwise.
const rankTouched = 2

// rank tells where a slot lies in a flat copy's slots: a bit per slot
// below the copy's end, set for the slots in slots, in groups of four
// words (256 slots), and per group how many are set before it. Immutable
// once built.
type rank struct {
	bits   []uint64 // a whole number of groups
	before []uint32 // per group
}

// rankSlots is the rank of slots, ascending and all below end.
func rankSlots(slots []uint32, end uint32) rank {
	words := (end + 255) / 256 * 4
	r := rank{bits: make([]uint64, words), before: make([]uint32, words/4)}
	for _, s := range slots {
		r.bits[s>>6] |= 1 << (s & 63)
	}
	n := uint32(0)
	for i, w := range r.bits {
		if i%4 == 0 {
			r.before[i/4] = n
		}
		n += uint32(bits.OnesCount64(w))
	}
	return r
}

// index is the index in the ranked slots of slot s, and false when s is
// not among them. The words before s's in its group are counted under a
// mask rather than in a loop of their number: that loop's exit was
// mispredicted (p50 2% higher).
func (r *rank) index(s uint32) (uint32, bool) {
	w := int(s >> 6)
	if w >= len(r.bits) {
		return 0, false
	}
	x := r.bits[w]
	if x>>(s&63)&1 == 0 {
		return 0, false
	}
	g := w &^ 3
	i := r.before[w/4] + uint32(bits.OnesCount64(x&(1<<(s&63)-1)))
	for j, y := range r.bits[g : g+3] {
		i += uint32(bits.OnesCount64(y & uint64(int64(g+j-w)>>63))) // the words before w: all ones
	}
	return i, true
}
