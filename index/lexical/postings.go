package lexical

import (
	"encoding/binary"
	"math"
)

// blockSize is the number of postings per block. A block is the unit of
// decoding and of skipping: a cursor seeking past a block's last document
// never decodes it.
const blockSize = 128

// block describes one block of a posting list.
type block struct {
	last   uint32 // last document slot in the block
	off    uint32 // offset of the block's first byte in postings.data
	maxTF  uint32 // largest term frequency in the block
	minLen uint32 // shortest document in the block (for the score bound)
}

// postings is one term's posting list in ascending slot order: blocks of
// (slot delta, tf) uvarint pairs, each block's first delta counted from the
// previous block's last slot (from 0 in the first block). About 2–3 bytes a
// posting against 8 for a (uint32, uint32) pair.
type postings struct {
	data   []byte
	blocks []block
	n      int // postings, including those of deleted slots
}

// add appends (doc, tf); doc must exceed every slot already in the list.
func (p *postings) add(doc, tf, length uint32) {
	base := uint32(0)
	if nb := len(p.blocks); nb > 0 {
		base = p.blocks[nb-1].last
	}
	if p.n%blockSize == 0 {
		p.blocks = append(p.blocks, block{off: uint32(len(p.data)), minLen: length})
	}
	b := &p.blocks[len(p.blocks)-1]
	p.data = binary.AppendUvarint(p.data, uint64(doc-base))
	p.data = binary.AppendUvarint(p.data, uint64(tf))
	b.last = doc
	b.maxTF = max(b.maxTF, tf)
	b.minLen = min(b.minLen, length)
	p.n++
}

// blockLen is the number of postings in block i.
func (p *postings) blockLen(i int) int {
	if i < len(p.blocks)-1 {
		return blockSize
	}
	return p.n - i*blockSize
}

// decode writes block i's slots and term frequencies into docs and tfs and
// returns how many there are. The data was written by add, so it is not
// checked.
func (p *postings) decode(i int, docs, tfs *[blockSize]uint32) int {
	n := p.blockLen(i)
	doc := uint32(0)
	if i > 0 {
		doc = p.blocks[i-1].last
	}
	b := p.data[p.blocks[i].off:]
	for j := range n {
		d, tf, w := uint32(b[0]), uint32(b[1]), 2 // see posting
		if d|tf >= 0x80 {
			d, tf, w = posting(b)
		}
		b = b[w:]
		doc += d
		docs[j], tfs[j] = doc, tf
	}
	return n
}

// posting decodes one (slot delta, tf) pair written by add that does not
// fit the one-byte fast path, and returns how many bytes it took. The data
// is not checked. The decoding loops (decode, scoreRange) test the fast path
// themselves, inline, before calling it: both values nearly always fit one
// byte each, and a call per posting costs measurably in those loops.
func posting(b []byte) (d, tf uint32, n int) {
	v, k := binary.Uvarint(b)
	w, m := binary.Uvarint(b[k:])
	return uint32(v), uint32(w), k + m
}

// exhausted is the slot of a cursor past its list's end.
const exhausted = math.MaxUint32

// cursor walks one query term's posting list in slot order.
type cursor struct {
	p    *postings
	w    float64 // qtf · idf · (k1+1)
	ub   float64 // upper bound of the term's contribution to any score
	doc  uint32  // current slot, or exhausted
	tf   uint32  // current term frequency
	bi   int     // current block
	sbi  int     // block blockBound last found (≥ bi once set)
	i, n int     // position in, and length of, the decoded block
	docs [blockSize]uint32
	tfs  [blockSize]uint32
}

// reset places c on the first posting of p.
func (c *cursor) reset(p *postings) {
	c.p, c.bi, c.sbi, c.i, c.n = p, -1, 0, 0, 0
	c.enter(0)
}

// enter decodes block bi and places c on its first posting, or marks c
// exhausted when there is no such block.
func (c *cursor) enter(bi int) {
	if bi >= len(c.p.blocks) {
		c.doc, c.bi = exhausted, len(c.p.blocks)
		return
	}
	c.bi, c.i = bi, 0
	c.n = c.p.decode(bi, &c.docs, &c.tfs)
	c.doc, c.tf = c.docs[0], c.tfs[0]
}

// next moves c to the following posting.
func (c *cursor) next() {
	if c.doc == exhausted {
		return
	}
	if c.i++; c.i < c.n {
		c.doc, c.tf = c.docs[c.i], c.tfs[c.i]
		return
	}
	c.enter(c.bi + 1)
}

// blockBound is the largest contribution any posting of the block that
// would hold target can make (0 past the end), found without decoding: the
// block-max idea of Ding & Suel (2011), applied to MaxScore's probes. The
// block found is remembered, so repeated calls with growing targets walk
// each list's block headers once.
func (c *cursor) blockBound(target uint32, bm bm25) float64 {
	bi := max(c.bi, c.sbi)
	for bi < len(c.p.blocks) && c.p.blocks[bi].last < target {
		bi++
	}
	c.sbi = bi
	if bi == len(c.p.blocks) {
		return 0
	}
	b := &c.p.blocks[bi]
	return bm.term(c.w, b.maxTF, b.minLen)
}

// seek moves c to the first posting with slot ≥ target, skipping whole
// blocks without decoding them.
func (c *cursor) seek(target uint32) {
	if c.doc >= target {
		return
	}
	if c.p.blocks[c.bi].last < target {
		bi := c.bi + 1
		for bi < len(c.p.blocks) && c.p.blocks[bi].last < target {
			bi++
		}
		c.enter(bi)
	}
	for c.doc < target {
		c.next()
	}
}
