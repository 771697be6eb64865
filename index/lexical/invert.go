package lexical

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/mcpvec/mcpvec/index/internal/parallel"
)

// invert rebuilds every posting list from the live passages' packed terms,
// term by term rather than passage by passage: scatter (slot, tf) into one
// array grouped by term (df gives each term's share), then encode each list
// in turn, sequentially, into one shared arena trimmed to size. Load and
// compaction use it; it leaves no slack. Callers hold the write lock.
func (ix *Index) invert() {
	start := make([]uint32, len(ix.post)+1)
	for t, df := range ix.df {
		start[t+1] = start[t] + df
	}
	ps, lengths := ix.scatter(start)
	ends := make([]int, len(ix.post)) // each list's end in data
	var data []byte
	blocks := make([]block, 0, len(ps)/blockSize+len(ix.post))
	var tmp postings
	for t := range ix.post {
		tmp = postings{data: tmp.data[:0], blocks: tmp.blocks[:0]}
		for _, e := range ps[start[t]:start[t+1]] {
			tmp.add(e.slot, e.tf, lengths[e.slot])
		}
		data = append(data, tmp.data...)
		ends[t] = len(data)
		blocks = append(blocks, tmp.blocks...)
		ix.post[t] = postings{blocks: blocks[len(blocks)-len(tmp.blocks) : len(blocks) : len(blocks)], n: tmp.n}
	}
	data = append([]byte(nil), data...) // drop append's slack
	off := 0
	for t, end := range ends {
		ix.post[t].data = data[off:end:end]
		off = end
	}
}

type slotTF struct{ slot, tf uint32 }

// scatter places every live posting at its term's next free position
// (term t's run starts at start[t]) and returns them with the passage
// lengths by slot.
func (ix *Index) scatter(start []uint32) (ps []slotTF, lengths []uint32) {
	ps = make([]slotTF, start[len(ix.post)])
	next := append([]uint32(nil), start[:len(ix.post)]...)
	lengths = make([]uint32, len(ix.docs))
	for s, d := range ix.docs {
		if !d.alive {
			continue
		}
		lengths[s] = d.length
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
	return ps, lengths
}

// appendPending adds the postings of slots from and above (passages Load
// inserted beside a segment, whose postings insertLocked deferred) to the
// lists read from the segment. Lists read in place (fixed) take them in
// their tails (postings.add): a list with none keeps its bytes in the
// segment, and one with some copies only its last block if that was not
// full. Other lists are laid out in one arena of exact size (releasing the
// segment's stream): each list is copied once instead of growing posting by
// posting from the segment's exact-size slices. The lists are independent,
// so they are built on all CPUs. Callers hold the write lock.
func (ix *Index) appendPending(from int) {
	start, ps := ix.pending(from)
	if ix.inPlace != nil {
		parallel.Ranges(len(ix.post), 1024, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				for _, e := range ps[start[t]:start[t+1]] {
					ix.post[t].add(e.slot, e.tf, ix.docs[e.slot].length)
				}
			}
		})
		return
	}
	dataOff, blockOff := ix.pendingSize(start, ps)
	data, blocks := make([]byte, dataOff[len(ix.post)]), make([]block, blockOff[len(ix.post)])
	parallel.Ranges(len(ix.post), 1024, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			p := &ix.post[t]
			d, b := data[dataOff[t]:dataOff[t+1]], blocks[blockOff[t]:blockOff[t+1]]
			// Exact capacities: add writes into the arenas in place.
			q := postings{data: p.appendFrom(d[:0:len(d)], 0), blocks: b[:copy(b, p.blocks)], n: p.n}
			for _, e := range ps[start[t]:start[t+1]] {
				q.add(e.slot, e.tf, ix.docs[e.slot].length)
			}
			*p = postings{data: slices.Clip(q.data), blocks: slices.Clip(q.blocks), n: q.n}
		}
	})
}

// pending returns the postings of slots from and above grouped by term,
// in slot order: term t's at ps[start[t]:start[t+1]].
func (ix *Index) pending(from int) (start []uint32, ps []slotTF) {
	start = make([]uint32, len(ix.post)+1)
	for s := from; s < len(ix.docs); s++ {
		for t := range unpackTerms(ix.docs[s].terms) {
			start[t+1]++
		}
	}
	for t := range ix.post {
		start[t+1] += start[t]
	}
	ps = make([]slotTF, start[len(ix.post)])
	next := append([]uint32(nil), start[:len(ix.post)]...)
	for s := from; s < len(ix.docs); s++ {
		for t, tf := range unpackTerms(ix.docs[s].terms) {
			ps[next[t]] = slotTF{uint32(s), tf}
			next[t]++
		}
	}
	return start, ps
}

// pendingSize returns where each posting list starts in the data and block
// arenas (the last entry: their sizes) once the pending postings ps (term
// t's at ps[start[t]:start[t+1]]) are added.
func (ix *Index) pendingSize(start []uint32, ps []slotTF) (dataOff, blockOff []int) {
	dataOff, blockOff = make([]int, len(ix.post)+1), make([]int, len(ix.post)+1)
	for t := range ix.post {
		p := &ix.post[t]
		n := p.size()
		prev := uint32(0)
		if len(p.blocks) > 0 {
			prev = p.blocks[len(p.blocks)-1].last
		}
		for _, e := range ps[start[t]:start[t+1]] {
			n += uvarintLen(e.slot-prev) + uvarintLen(e.tf)
			prev = e.slot
		}
		dataOff[t+1] = dataOff[t] + n
		blockOff[t+1] = blockOff[t] + (p.n+int(start[t+1]-start[t])+blockSize-1)/blockSize
	}
	return dataOff, blockOff
}

// uvarintLen is the length of v's uvarint encoding.
func uvarintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }
