package lexical

import (
	"encoding/binary"

	"github.com/mcpvec/mcpvec/index"
)

// Adopting the segment a Save just wrote (see doc.go, Memory). During a
// long write (an ingest) the index holds every passage's packed terms and
// every posting list in its own memory, while the segment it writes every
// sixteenth of its growth holds the same bytes in the file: about 1.7 KB a
// passage of heap at a million passages. Adopt points the index at the
// segment's bytes instead, read in place through a pin (InPlace), as Load
// does for a library opened with a segment; the heap then keeps only the
// fixed-width rows (passage ids, lengths, block headers) and what was added
// since. Nothing about ranking changes: the bytes are the same, in the
// same slots.

// Adopt makes the index read its passages' packed terms and its posting
// lists in kv's segment, in place, where that segment holds what the index
// holds: the one its last segment Save wrote (or Load read), its slots
// unchanged since. Passages added since keep their terms in memory, and
// the postings added since to a list stay in its tail (postings), as do
// those of a block the segment ends inside; passages deleted since stay
// deleted. kv must be wrapped by InPlace, with the same promise as for
// Load: its values stay valid until Detach or Unload. Whatever the index
// read in place before (an older segment, whose values the caller may let
// go once Adopt returned true) is no longer read: that is how a segment is
// written from the one read in place and then read in place itself,
// without copying either. It reports whether it adopted the segment;
// false changes nothing (a segment of other passages, slots renumbered
// since by a compaction, a KV not wrapped by InPlace). A segment that
// fails its checksums is not adopted and its error comes back. It takes
// the write lock; it is safe for concurrent use.
func (ix *Index) Adopt(kv index.KV) (bool, error) {
	if _, ok := kv.(inPlaceKV); !ok {
		return false, nil
	}
	ix.lock()
	defer ix.mu.Unlock()
	if !ix.hasSeg {
		return false, nil
	}
	m, err := decodeManifest(kv.Get(segMetaKey))
	if err != nil || int(m.docs) > len(ix.docs) || int(m.terms) > len(ix.post) {
		return false, nil
	}
	streams, wait, err := readStreams(kv, []segStream{{streamTables, m.tablesLen(), m.crcTables},
		{streamFwd, m.fwdLen, m.crcFwd}, {streamPost, m.postLen, m.crcPost}}, true)
	if err == nil {
		err = wait()
	}
	if err != nil {
		return false, err
	}
	terms, data, counts, ok := ix.matchSegment(&m, streams[0], streams[1], streams[2])
	if !ok {
		return false, nil
	}
	for s, b := range terms {
		if ix.docs[s].terms != nil {
			ix.docs[s].terms = b
		}
	}
	for t := range data {
		ix.post[t].adopt(&data[t], counts[t])
	}
	for t := range ix.post[len(data):] {
		ix.post[len(data)+t].fixed = false // nothing of theirs in the segment
	}
	ix.readInPlace(streams[1], streams[2])
	return true, nil
}

// adopt makes b, the segment's bytes of the list's first n postings (the
// list when the segment was written, as stream.nextList returned them),
// the list's data, read in place. When postings were added since, the
// bytes after b go to the list's tail, from the start of the block b ends
// inside, if it does, so that no block straddles the two.
func (p *postings) adopt(b *postings, n int) {
	if p.size() == b.fixedLen() {
		p.data, p.more, p.tail, p.fixed = b.data, b.more, nil, true
		return
	}
	cut := b.fixedLen()
	if n%blockSize != 0 {
		cut = int(p.blocks[n/blockSize].off)
	}
	p.tail = p.appendFrom(make([]byte, 0, p.size()-cut+64), cut)
	b.cutFixed(cut)
	p.data, p.more, p.fixed = b.data, b.more, false
}

// matchSegment walks the segment's passage and term rows and returns, by
// slot and by term, the slices of fwd and post that hold the index's
// packed terms and the first bytes of its posting lists (as data and
// pieces, stream.nextList), and how many postings those bytes hold; ok is
// false when
// a row differs from the index (another passage, a list shorter than the
// segment's). The caller holds the write lock.
func (ix *Index) matchSegment(m *manifest, tables, fwd, post *stream) (terms [][]byte, data []postings, counts []int, ok bool) {
	le := binary.LittleEndian
	terms = make([][]byte, m.docs)
	for s := range terms {
		r, d := tables.next(docRowSize), &ix.docs[s]
		n := le.Uint32(r[20:])
		if le.Uint64(r) != d.id || uint64(n) > fwd.left || d.alive && (le.Uint32(r[16:]) != d.nterms || int(n) != len(d.terms)) {
			return nil, nil, nil, false
		}
		terms[s] = fwd.next(int(n))
	}
	data, counts = make([]postings, m.terms), make([]int, m.terms)
	for t := range data {
		r, p := tables.next(termRowSize), &ix.post[t]
		n, dl := le.Uint32(r), le.Uint32(r[4:])
		if int(n) > p.n || int(dl) > p.size() || uint64(dl) > post.left {
			return nil, nil, nil, false
		}
		d, more := post.nextList(int(dl), p.blocks[:(n+blockSize-1)/blockSize])
		data[t], counts[t] = postings{data: d, more: more}, int(n)
	}
	return terms, data, counts, fwd.left == 0 && post.left == 0
}

// Prewritten reports whether PrewriteSegment has written the segment the
// next Save will use, no slots having been renumbered since: that Save
// then writes only the segment's manifest and dictionary and the records
// and tombstones of the changes since (SavePlan counts them), and deletes
// what the segment replaces, a small write. It is safe for concurrent use.
func (ix *Index) Prewritten() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.pre != nil
}

// SegmentBytes is about how many bytes a segment of the index as it is
// would take: its passage, term and block rows, packed terms and posting
// data (a walk of every passage and list, under the read lock). A caller
// that writes the segment while reading the old one in place (Adopt) sizes
// the room it needs with it. It is safe for concurrent use.
func (ix *Index) SegmentBytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := int64(len(ix.docs))*docRowSize + int64(len(ix.post))*termRowSize
	for s := range ix.docs {
		n += int64(len(ix.docs[s].terms))
	}
	for t := range ix.post {
		p := &ix.post[t]
		n += int64(p.size()) + int64(len(p.blocks))*blockRowSize
	}
	return n
}

// SegmentSaves counts the Saves that wrote a segment (or began to): a
// caller that keeps a segment's bytes read in place live (Adopt) tells by
// it whether a Save replaced that segment. It is safe for concurrent use.
func (ix *Index) SegmentSaves() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.segSaves
}
