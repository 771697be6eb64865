package lexical

import (
	"encoding/binary"
	"iter"
	"math"
	"sort"
	"sync/atomic"
)

// blockSize is the number of postings per block. A block is the unit of
// decoding and of skipping: a cursor seeking past a block's last document
// never decodes it.
const blockSize = 128

// block describes one block of a posting list.
type block struct {
	last   uint32 // last document slot in the block
	off    uint32 // offset of the block's first byte in the list (postings.at)
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
// list read in place whose bytes lie in several of the segment's chunks
// keeps them there too, as pieces (more): data is the first, and only a
// block that straddles two chunks is copied, into a piece of its own
// (stream.nextList), so that no block straddles two pieces either. A
// block's off counts across all of them: data's bytes, the pieces', then
// tail's (at).
type postings struct {
	data   []byte
	more   *[]piece // the pieces after data, nil unless the list is read in place from several chunks
	tail   []byte   // postings added after data became fixed; nil until then
	blocks []block
	n      int                   // postings, including those of deleted slots
	flat   atomic.Pointer[flat]  // the scoring copy of a long list, nil until read (search_flat.go)
	peaks  atomic.Pointer[peaks] // what bounds the list's scores, nil until read (search_bound.go)
	fixed  bool                  // data is read in place: never appended to
}

// piece is a run of a list's bytes after its data (postings.more), from
// off in the list; it starts at a block's start and ends at one or at the
// end of the list's fixed bytes.
type piece struct {
	off uint32
	b   []byte
}

// fixedLen is the list's bytes before tail: data's and the pieces'.
func (p *postings) fixedLen() int {
	if p.more == nil {
		return len(p.data)
	}
	last := (*p.more)[len(*p.more)-1]
	return int(last.off) + len(last.b)
}

// size is the list's bytes, data, pieces and tail.
func (p *postings) size() int { return p.fixedLen() + len(p.tail) }

// parts yields the list's bytes in order: data, the pieces, tail.
func (p *postings) parts() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if !yield(p.data) {
			return
		}
		if p.more != nil {
			for _, pc := range *p.more {
				if !yield(pc.b) {
					return
				}
			}
		}
		yield(p.tail)
	}
}

// appendFrom appends the list's bytes from off on to dst.
func (p *postings) appendFrom(dst []byte, off int) []byte {
	for b := range p.parts() {
		if off < len(b) {
			dst = append(dst, b[off:]...)
		}
		off = max(0, off-len(b))
	}
	return dst
}

// at returns the list's bytes from off (counted across data, the pieces
// and tail) to the end of the part that holds off.
func (p *postings) at(off uint32) []byte {
	if int(off) < len(p.data) {
		return p.data[off:]
	}
	if p.more != nil {
		return p.atMore(off)
	}
	return p.tail[int(off)-len(p.data):]
}

// atMore is at for an offset past data in a list with pieces.
func (p *postings) atMore(off uint32) []byte {
	ps := *p.more
	i := sort.Search(len(ps), func(i int) bool { return ps[i].off > off }) - 1
	if i >= 0 && int(off-ps[i].off) < len(ps[i].b) {
		return ps[i].b[off-ps[i].off:]
	}
	return p.tail[int(off)-p.fixedLen():]
}

// part returns the list's bytes from block bi's start to the end of the
// part (data, a piece or tail) that holds it, and how many postings they
// hold: a part begins and ends at block boundaries.
func (p *postings) part(bi int) ([]byte, int) {
	b := p.at(p.blocks[bi].off)
	end := int(p.blocks[bi].off) + len(b)
	if end == p.size() {
		return b, p.n - bi*blockSize
	}
	nb := bi + sort.Search(len(p.blocks)-bi, func(i int) bool { return int(p.blocks[bi+i].off) >= end })
	return b, (nb - bi) * blockSize
}

// cutFixed drops the list's fixed bytes from cut on (a block's start, or
// the end of the fixed bytes).
func (p *postings) cutFixed(cut int) {
	if cut <= len(p.data) {
		p.data, p.more = p.data[:cut:cut], nil
		return
	}
	var kept []piece
	for _, pc := range *p.more {
		if int(pc.off) >= cut {
			break
		}
		n := min(len(pc.b), cut-int(pc.off))
		kept = append(kept, piece{pc.off, pc.b[:n:n]})
	}
	p.more = &kept
}

// startTail makes a fixed list take its next postings in tail: the bytes
// of its last block, when that block is not full, move there from data (or
// the last piece).
func (p *postings) startTail() {
	cut := p.fixedLen()
	if nb := len(p.blocks); nb > 0 && p.n%blockSize != 0 {
		cut = int(p.blocks[nb-1].off)
	}
	p.tail = p.appendFrom(make([]byte, 0, 64), cut)
	p.cutFixed(cut)
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
