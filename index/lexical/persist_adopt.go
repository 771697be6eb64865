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
// lists in kv's segment, in place, when that segment holds exactly what
// the index holds: the one its last Save wrote (or Load read), with
// nothing added, removed or pending since. kv must be wrapped by InPlace,
// with the same promise as for Load: its values stay valid until Detach or
// Unload. Whatever the index read in place before (an older segment, whose
// values the caller may let go once Adopt returned true) is no longer read.
// That is how a segment is written from the one read in place and then
// read in place itself, without copying either. It reports whether
// it adopted the segment; false changes nothing (a segment of other
// passages, records beside it, a KV not wrapped by InPlace). A segment
// that fails its checksums is not adopted and its error comes back. It
// takes the write lock; it is safe for concurrent use.
func (ix *Index) Adopt(kv index.KV) (bool, error) {
	if _, ok := kv.(inPlaceKV); !ok {
		return false, nil
	}
	ix.lock()
	defer ix.mu.Unlock()
	if !ix.hasSeg || ix.deltaKeys > 0 || len(ix.dirty)+len(ix.removed) > 0 ||
		len(ix.docs) != ix.alive || ix.segmentDueLocked() {
		return false, nil
	}
	m, err := decodeManifest(kv.Get(segMetaKey))
	if err != nil || int(m.docs) != len(ix.docs) || int(m.terms) != len(ix.post) {
		return false, nil
	}
	streams, err := readStreams(kv, []segStream{{streamTables, m.tablesLen(), m.crcTables},
		{streamFwd, m.fwdLen, m.crcFwd}, {streamPost, m.postLen, m.crcPost}}, true)
	if err != nil {
		return false, err
	}
	terms, data, ok := ix.matchSegment(&m, streams[0], streams[1], streams[2])
	if !ok {
		return false, nil
	}
	for s := range ix.docs {
		ix.docs[s].terms = terms[s]
	}
	for t := range ix.post {
		ix.post[t].data, ix.post[t].tail, ix.post[t].fixed = data[t], nil, true
	}
	ix.inPlace = append(streams[1].chunks, streams[2].chunks...)
	return true, nil
}

// matchSegment walks the segment's passage and term rows and returns, by
// slot and by term, the slices of fwd and post that hold the index's
// packed terms and posting data; ok is false when a row differs from the
// index (another passage, length or list size). The caller holds the write
// lock.
func (ix *Index) matchSegment(m *manifest, tables, fwd, post *stream) (terms, data [][]byte, ok bool) {
	le := binary.LittleEndian
	terms = make([][]byte, m.docs)
	for s := range terms {
		r, d := tables.next(docRowSize), &ix.docs[s]
		n := le.Uint32(r[20:])
		if le.Uint64(r) != d.id || le.Uint32(r[16:]) != d.nterms || int(n) != len(d.terms) || uint64(n) > fwd.left {
			return nil, nil, false
		}
		terms[s] = fwd.next(int(n))
	}
	data = make([][]byte, m.terms)
	for t := range data {
		r, p := tables.next(termRowSize), &ix.post[t]
		n, dl := le.Uint32(r), le.Uint32(r[4:])
		if int(n) != p.n || int(dl) != p.size() || uint64(dl) > post.left {
			return nil, nil, false
		}
		data[t] = post.next(int(dl))
	}
	return terms, data, fwd.left == 0 && post.left == 0
}

// Prewritten reports whether PrewriteSegment has written the segment the
// next Save would write, nothing having changed since: that Save then
// writes only the segment's manifest and dictionary and deletes what the
// segment replaces, a small write. It is safe for concurrent use.
func (ix *Index) Prewritten() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.pre != nil && ix.pre.gen == ix.gen
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
