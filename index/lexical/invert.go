package lexical

import "encoding/binary"

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

// repack copies every posting list into one arena of exact size, and the
// block headers into another, releasing the shares that lists left behind
// when they grew (LoadIDs, after adding records to lists read from a
// segment). A copy, not an inversion: cheap next to invert. Callers hold
// the write lock.
func (ix *Index) repack() {
	n, nb := 0, 0
	for i := range ix.post {
		n, nb = n+len(ix.post[i].data), nb+len(ix.post[i].blocks)
	}
	data, blocks := make([]byte, 0, n), make([]block, 0, nb)
	for i := range ix.post {
		p := &ix.post[i]
		d0, b0 := len(data), len(blocks)
		data, blocks = append(data, p.data...), append(blocks, p.blocks...)
		p.data, p.blocks = data[d0:len(data):len(data)], blocks[b0:len(blocks):len(blocks)]
	}
}
