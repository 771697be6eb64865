package lexical

import (
	"encoding/binary"
	"math"
	"sync/atomic"
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
//
// A list whose data is read in place (fixed: a segment's bytes in the
// file, persist_adopt.go) is never copied to be extended: the postings
// added to it go to tail, its own allocation, the bytes of a block that
// was not full moved there first, so that no block straddles the two. A
// block's off counts across both: data's bytes, then tail's (at).
type postings struct {
	data   []byte
	tail   []byte // postings added after data became fixed; nil until then
	blocks []block
	n      int                   // postings, including those of deleted slots
	flat   atomic.Pointer[flat]  // the scoring copy of a long list, nil until read (search_flat.go)
	peaks  atomic.Pointer[peaks] // what bounds the list's scores, nil until read (search_bound.go)
	fixed  bool                  // data is read in place: never appended to
}

// size is the list's bytes, data and tail.
func (p *postings) size() int { return len(p.data) + len(p.tail) }

// at returns the list's bytes from off (counted across data and tail) to
// the end of the part, data or tail, that holds off.
func (p *postings) at(off uint32) []byte {
	if int(off) < len(p.data) {
		return p.data[off:]
	}
	return p.tail[int(off)-len(p.data):]
}

// startTail makes a fixed list take its next postings in tail: the bytes
// of its last block, when that block is not full, move there from data.
func (p *postings) startTail() {
	cut := len(p.data)
	if nb := len(p.blocks); nb > 0 && p.n%blockSize != 0 {
		cut = int(p.blocks[nb-1].off)
	}
	p.tail = append(make([]byte, 0, 64), p.data[cut:]...)
	p.data = p.data[:cut:cut]
	p.fixed = false
}

// add appends (doc, tf); doc must exceed every slot already in the list.
func (p *postings) add(doc, tf, length uint32) {
	base := uint32(0)
	if nb := len(p.blocks); nb > 0 {
		base = p.blocks[nb-1].last
	}
	if p.fixed {
		p.startTail()
	}
	if p.n%blockSize == 0 {
		p.blocks = append(p.blocks, block{off: uint32(p.size()), minLen: length})
	}
	b := &p.blocks[len(p.blocks)-1]
	if p.tail != nil {
		p.tail = binary.AppendUvarint(p.tail, uint64(doc-base))
		p.tail = binary.AppendUvarint(p.tail, uint64(tf))
	} else {
		p.data = binary.AppendUvarint(p.data, uint64(doc-base))
		p.data = binary.AppendUvarint(p.data, uint64(tf))
	}
	b.last = doc
	b.maxTF = max(b.maxTF, tf)
	b.minLen = min(b.minLen, length)
	p.n++
	if p.peaks.Load() != nil { // a load is cheaper than a store on the common path
		p.peaks.Store(nil)
	}
	if f := p.flat.Load(); f != nil && p.n-f.n >= f.n/4 {
		// A copy reads the postings added after it compressed (they
		// all lie past its slots); once they are many, it is made anew.
		p.flat.Store(nil)
	}
}

// dropFlat forgets p's flat copy (search_flat.go), as a change of the list or of
// a passage in it must. The caller holds the index's write lock.
func (p *postings) dropFlat() {
	if p.flat.Load() != nil { // a load is cheaper than a store on the common path
		p.flat.Store(nil)
	}
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
	b := p.at(p.blocks[i].off)
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
// is not checked. The decoding loops (decode, addList) test the fast path
// themselves, inline, before calling it: both values nearly always fit one
// byte each, and a call per posting costs measurably in those loops.
func posting(b []byte) (d, tf uint32, n int) {
	v, k := binary.Uvarint(b)
	w, m := binary.Uvarint(b[k:])
	return uint32(v), uint32(w), k + m
}

// exhausted is a slot past every list's end (an open upper end of a slot
// range).
const exhausted = math.MaxUint32

// cursor is one query term's posting list with what scoring needs of it.
type cursor struct {
	p     *postings
	term  uint32  // the term id
	w     float64 // qtf · idf · (k1+1)
	ub    float64 // upper bound of the term's contribution to any score (the blocks')
	order float64 // the list's bound, from its largest tf and shortest passage: the cursors' order
	maxTF uint32  // the largest tf in the list
}

// blockMaxTF is the largest term frequency in the block whose slot range
// would hold slot s, 0 when s is past the list's last slot: a bound of s's
// tf in the list (0 if it is not there). Slots spread about evenly over a
// list, so it guesses the block from s's place in the list's range and
// gallops from there: one or two steps where a binary search takes eight.
func (p *postings) blockMaxTF(s uint32) uint32 {
	nb := len(p.blocks)
	if nb == 0 || s > p.blocks[nb-1].last {
		return 0
	}
	i := int(uint64(s) * uint64(nb) / (uint64(p.blocks[nb-1].last) + 1))
	lo, hi := 0, nb-1 // the block sought is in [lo, hi]
	if p.blocks[i].last < s {
		lo = i + 1
		step := 1
		for lo+step-1 < hi && p.blocks[lo+step-1].last < s {
			lo, step = lo+step, step*2
		}
		hi = min(hi, lo+step-1)
	} else {
		hi = i
		step := 1
		for hi-step >= lo && p.blocks[hi-step].last >= s {
			hi, step = hi-step, step*2
		}
		lo = max(lo, hi-step+1)
	}
	for lo < hi { // the first block whose last slot is s or later
		m := int(uint(lo+hi) >> 1)
		if p.blocks[m].last < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return p.blocks[lo].maxTF
}
