package lexical

import "encoding/binary"

// invert rebuilds every posting list from the live passages' packed terms,
// term by term rather than passage by passage: count the postings of each
// term, scatter (slot, tf) into one array grouped by term, then encode each
// list in turn into one shared, exactly sized arena. Load and compaction
// use it; it is about twice as fast as adding passage by passage (which
// touches a different list for every posting) and leaves no slack.
// Callers hold the write lock.
func (ix *Index) invert() {
	// df counts the live passages holding each term: the postings to place.
	start := make([]int, len(ix.post)+1)
	for t, df := range ix.df {
		start[t+1] = start[t] + int(df)
	}
	ps := make([]slotTF, start[len(ix.post)])
	next := append([]int(nil), start[:len(ix.post)]...)
	for s, d := range ix.docs {
		if !d.alive {
			continue
		}
		b, t := d.terms, uint32(0)
		for len(b) > 0 {
			delta, n := binary.Uvarint(b)
			tf, n2 := binary.Uvarint(b[n:])
			b = b[n+n2:]
			t += uint32(delta)
			ps[next[t]] = slotTF{uint32(s), uint32(tf)}
			next[t]++
		}
	}
	data, blocks := ix.arenas(start, ps)
	for t := range ix.post {
		p := postings{data: data[:0], blocks: blocks[:0]}
		for _, e := range ps[start[t]:start[t+1]] {
			p.add(e.slot, e.tf, ix.docs[e.slot].length)
		}
		p.data, p.blocks = p.data[:len(p.data):len(p.data)], p.blocks[:len(p.blocks):len(p.blocks)]
		data, blocks = data[len(p.data):], blocks[len(p.blocks):]
		ix.post[t] = p
	}
}

type slotTF struct{ slot, tf uint32 }

// arenas allocates the exact bytes and blocks the lists grouped by start
// need.
func (ix *Index) arenas(start []int, ps []slotTF) ([]byte, []block) {
	nbytes, nblocks := 0, 0
	for t := range ix.post {
		lo, hi := start[t], start[t+1]
		nblocks += (hi - lo + blockSize - 1) / blockSize
		prev := uint32(0) // each delta is from the previous posting, across blocks too
		for _, e := range ps[lo:hi] {
			nbytes += uvarintLen(e.slot-prev) + uvarintLen(e.tf)
			prev = e.slot
		}
	}
	return make([]byte, nbytes), make([]block, nblocks)
}

func uvarintLen(v uint32) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
