package lexical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/mcpvec/mcpvec/index"
)

// The segment is the persisted base of the index (see doc.go, Persistence):
// the live passages and their posting lists, laid out as the index holds
// them in memory, so Load copies them instead of inverting records. Three
// byte streams, each cut into chunks of segChunkSize under
// segChunkPrefix + stream byte + 4-byte big-endian chunk number:
//
//	tables 't':   per passage (slot order) id u64, length, sum, nterms,
//	              record bytes u32; per term (id order) postings n, data
//	              bytes u32; per block, term by term: last, off, maxTF,
//	              minLen u32
//	records 'f':  every passage's packed terms (slot order)
//	postings 'p': every term's posting data (id order)
//
// All integers are little-endian. The manifest under segMetaKey gives the
// counts, the lengths and the CRC-32C of the streams. The tables are decoded
// where they lie. Records and postings are read into an allocation each, so
// that rebuilding the posting lists (finishLoad) can release theirs, or, for
// a KV wrapped by InPlace, left in its chunks (persist_inplace.go): a passage's
// terms that straddle two chunks are copied, and of a posting list that
// does, only the block that straddles (stream.nextList).
var (
	segMetaKey     = []byte("\x00lexical-segm")
	segChunkPrefix = []byte("\x00lexical-segc")
)

const (
	segVersion   = 1
	docRowSize   = 24
	termRowSize  = 8
	blockRowSize = 16
	manifestSize = 45
	streamTables = 't'
	streamFwd    = 'f'
	streamPost   = 'p'
	// maxStream bounds a stream's length read from a manifest (whose own
	// checksum held) before memory is reserved for it.
	maxStream = 1 << 40
)

// segChunkSize is the size of a segment chunk: big enough that a segment of
// a million passages is a few hundred keys, small enough that bbolt never
// holds one huge value. A variable so that tests can cut small segments
// into many chunks.
var segChunkSize = 1 << 20

// errSegment marks a segment that cannot be used; Load then tokenises the
// passages it held.
var errSegment = errors.New("lexical segment unusable")

// manifest describes a persisted segment.
type manifest struct {
	docs, terms, blocks uint32
	fwdLen, postLen     uint64
	crcTables, crcFwd   uint32
	crcPost             uint32
}

func (m *manifest) tablesLen() uint64 {
	return uint64(m.docs)*docRowSize + uint64(m.terms)*termRowSize + uint64(m.blocks)*blockRowSize
}

// encode lays out the manifest: version, docs, terms, blocks, fwdLen,
// postLen, crcTables, crcFwd, crcPost, then the CRC-32C of all that.
func (m *manifest) encode() []byte {
	b := make([]byte, 0, manifestSize)
	b = append(b, segVersion)
	b = binary.LittleEndian.AppendUint32(b, m.docs)
	b = binary.LittleEndian.AppendUint32(b, m.terms)
	b = binary.LittleEndian.AppendUint32(b, m.blocks)
	b = binary.LittleEndian.AppendUint64(b, m.fwdLen)
	b = binary.LittleEndian.AppendUint64(b, m.postLen)
	b = binary.LittleEndian.AppendUint32(b, m.crcTables)
	b = binary.LittleEndian.AppendUint32(b, m.crcFwd)
	b = binary.LittleEndian.AppendUint32(b, m.crcPost)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeManifest(v []byte) (manifest, error) {
	if len(v) != manifestSize || v[0] != segVersion {
		return manifest{}, fmt.Errorf("%w: manifest of %d bytes, version %d", errSegment, len(v), firstByte(v))
	}
	if crc32.Checksum(v[:manifestSize-4], castagnoli) != binary.LittleEndian.Uint32(v[manifestSize-4:]) {
		return manifest{}, fmt.Errorf("%w: manifest checksum mismatch", errSegment)
	}
	le := binary.LittleEndian
	m := manifest{docs: le.Uint32(v[1:]), terms: le.Uint32(v[5:]), blocks: le.Uint32(v[9:]),
		fwdLen: le.Uint64(v[13:]), postLen: le.Uint64(v[21:]), crcTables: le.Uint32(v[29:]), crcFwd: le.Uint32(v[33:]), crcPost: le.Uint32(v[37:])}
	if m.tablesLen() > maxStream || m.fwdLen > maxStream || m.postLen > maxStream {
		return manifest{}, fmt.Errorf("%w: manifest sizes out of range", errSegment)
	}
	return m, nil
}

func firstByte(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}

func segChunkKey(stream byte, i uint32) []byte {
	k := append(slices.Clone(segChunkPrefix), stream)
	return binary.BigEndian.AppendUint32(k, i)
}

// chunkWriter cuts a stream into chunks, each freshly allocated and handed
// to Put once full, and checksums it on the way.
type chunkWriter struct {
	kv     index.KV
	stream byte
	next   uint32
	buf    []byte
	crc    uint32
	n      uint64
	err    error
}

func (w *chunkWriter) write(p []byte) {
	w.crc = crc32.Update(w.crc, castagnoli, p)
	w.n += uint64(len(p))
	for len(p) > 0 && w.err == nil {
		if w.buf == nil {
			w.buf = make([]byte, 0, segChunkSize)
		}
		n := min(len(p), cap(w.buf)-len(w.buf))
		w.buf, p = append(w.buf, p[:n]...), p[n:]
		if len(w.buf) == cap(w.buf) {
			w.flush()
		}
	}
}

func (w *chunkWriter) flush() {
	if w.err != nil || len(w.buf) == 0 {
		return
	}
	if err := w.kv.Put(segChunkKey(w.stream, w.next), w.buf); err != nil {
		w.err = fmt.Errorf("put lexical segment chunk %c%d: %w", w.stream, w.next, err)
	}
	w.next++
	w.buf = nil
}

// writeSegmentLocked writes every passage and posting list as the two
// segment streams and returns their manifest. Every slot must be live (see
// saveSegmentLocked), so a posting list's length is its term's df.
func (ix *Index) writeSegmentLocked(kv index.KV) (manifest, error) {
	m := manifest{docs: uint32(len(ix.docs)), terms: uint32(len(ix.post))}
	tw, fw, pw := &chunkWriter{kv: kv, stream: streamTables}, &chunkWriter{kv: kv, stream: streamFwd}, &chunkWriter{kv: kv, stream: streamPost}
	le := binary.LittleEndian
	var row [docRowSize]byte
	for i := range ix.docs {
		d := &ix.docs[i]
		le.PutUint64(row[0:], d.id)
		le.PutUint32(row[8:], d.length)
		le.PutUint32(row[12:], d.sum)
		le.PutUint32(row[16:], d.nterms)
		le.PutUint32(row[20:], uint32(len(d.terms)))
		tw.write(row[:])
		fw.write(d.terms)
	}
	for i := range ix.post {
		p := &ix.post[i]
		le.PutUint32(row[0:], uint32(p.n))
		le.PutUint32(row[4:], uint32(p.size()))
		tw.write(row[:termRowSize])
		m.blocks += uint32(len(p.blocks))
	}
	for i := range ix.post {
		for _, b := range ix.post[i].blocks {
			le.PutUint32(row[0:], b.last)
			le.PutUint32(row[4:], b.off)
			le.PutUint32(row[8:], b.maxTF)
			le.PutUint32(row[12:], b.minLen)
			tw.write(row[:blockRowSize])
		}
		for b := range ix.post[i].parts() {
			pw.write(b)
		}
	}
	for _, w := range []*chunkWriter{tw, fw, pw} {
		w.flush()
	}
	m.fwdLen, m.postLen = fw.n, pw.n
	m.crcTables, m.crcFwd, m.crcPost = tw.crc, fw.crc, pw.crc
	return m, errors.Join(tw.err, fw.err, pw.err)
}

// loadSegmentLocked reads the segment, if there is one, into the empty
// index whose dictionary is loaded: in place when kv is wrapped by InPlace.
// It reports whether there was one; on error the index is left empty (the
// caller tokenises what the segment held).
func (ix *Index) loadSegmentLocked(kv index.KV) (found bool, err error) {
	v := kv.Get(segMetaKey)
	if v == nil {
		return false, nil
	}
	m, err := decodeManifest(v)
	if err != nil {
		return true, err
	}
	if int(m.terms) > len(ix.termStr) {
		return true, fmt.Errorf("%w: it uses %d terms, the dictionary holds %d", errSegment, m.terms, len(ix.termStr))
	}
	_, inPlace := kv.(inPlaceKV)
	streams, wait, err := readStreams(kv, []segStream{{streamTables, m.tablesLen(), m.crcTables},
		{streamFwd, m.fwdLen, m.crcFwd}, {streamPost, m.postLen, m.crcPost}}, inPlace)
	if err != nil {
		return true, err
	}
	err = errors.Join(ix.decodeSegment(&m, streams), wait())
	if err == nil {
		err = termsSane(streams[1], ix.livePost)
	}
	if err != nil {
		ix.resetPassages()
		return true, err
	}
	if inPlace {
		ix.readInPlace(streams[1], streams[2])
		for t := range ix.post {
			ix.post[t].fixed = true // extended in a tail, not copied (postings)
		}
	}
	return true, nil
}

// termsSane checks the stream of packed terms, fwd (checksummed by
// verifyStream), against the passages' term counts, postings in all: each
// (term delta, tf) pair ends two uvarints, so the stream holds twice as
// many bytes below 0x80 as the passages have terms. A checksum vouches only
// for the bytes the Save wrote: a segment written from terms the index
// read in place out of pages bbolt had reused meanwhile (fixed in session
// 25; see store.Pin.Renew) has good checksums, and fails this.
func termsSane(fwd *stream, postings int) error {
	if fwd.ends != 2*uint64(postings) {
		return fmt.Errorf("%w: the packed terms end %d numbers, their passages have %d terms (written from damaged memory)", errSegment, fwd.ends, postings)
	}
	return nil
}

// decodeSegment decodes the segment's tables into the index's passages and
// posting lists, which keep their bytes in the other two streams.
func (ix *Index) decodeSegment(m *manifest, streams []*stream) error {
	tables, fwd, post := streams[0], streams[1], streams[2]
	docs, postings, err := decodeDocs(tables, m.docs, fwd)
	if err != nil {
		return err
	}
	if err := ix.decodePostings(m, tables, post, postings); err != nil {
		return err
	}
	if !ix.setDocs(docs) {
		return fmt.Errorf("%w: a passage id appears twice", errSegment)
	}
	ix.alive, ix.livePost = len(docs), postings
	return nil
}

// setDocs makes docs, read from a segment, the index's passages, and
// reports false when an id appears twice. The map from id to slot is left
// to be built when first needed (slots.go) when the ids can be checked for
// repeats without it (distinctDense): building it is a sixth of a load's
// CPU at 1M passages, and searches without a filter never need it.
func (ix *Index) setDocs(docs []docEntry) bool {
	ix.docs, ix.lens = docs, make([]uint32, len(docs))
	for s := range docs {
		d := &docs[s]
		ix.totalLen += uint64(d.length)
		ix.lens[s] = d.length
	}
	if distinct, ok := distinctDense(docs); ok {
		ix.slot = nil
		ix.slotLate.Store(distinct)
		return distinct
	}
	ix.setSlots(make(map[uint64]uint32, len(docs)))
	for s := range docs {
		ix.slot[docs[s].id] = uint32(s)
	}
	return len(ix.slot) == len(docs)
}

// distinctDense reports whether the ids of docs are distinct, checked with
// one bit per id between the smallest and the largest, when that span is
// at most 64 ids a passage (passage ids are sequence numbers, so a
// library's are dense); ok is false for a wider span, left to the caller.
func distinctDense(docs []docEntry) (distinct, ok bool) {
	if len(docs) == 0 {
		return true, true
	}
	lo, hi := docs[0].id, docs[0].id
	for s := range docs {
		lo, hi = min(lo, docs[s].id), max(hi, docs[s].id)
	}
	if hi-lo >= 64*uint64(len(docs)) {
		return false, false
	}
	seen := make([]uint64, (hi-lo)/64+1)
	for s := range docs {
		i := docs[s].id - lo
		if seen[i/64]&(1<<(i%64)) != 0 {
			return false, true
		}
		seen[i/64] |= 1 << (i % 64)
	}
	return true, true
}

// decodeDocs decodes the n passage rows at the start of the tables; each
// passage's packed terms stay in fwd. It returns the total of their term
// counts (the number of postings).
func decodeDocs(tables *stream, n uint32, fwd *stream) ([]docEntry, int, error) {
	le := binary.LittleEndian
	docs := make([]docEntry, n)
	postings := 0
	for i := range docs {
		r := tables.next(docRowSize)
		n := uint64(le.Uint32(r[20:]))
		if n > fwd.left {
			return nil, 0, fmt.Errorf("%w: passage row %d overruns the records", errSegment, i)
		}
		docs[i] = docEntry{id: le.Uint64(r), length: le.Uint32(r[8:]), sum: le.Uint32(r[12:]),
			nterms: le.Uint32(r[16:]), alive: true, terms: fwd.next(int(n))}
		postings += int(docs[i].nterms)
	}
	if fwd.left != 0 {
		return nil, 0, fmt.Errorf("%w: %d record bytes left over", errSegment, fwd.left)
	}
	return docs, postings, nil
}

// decodePostings decodes the term and block rows that follow the passage
// rows in the tables into ix.post and ix.df; posting data stays in data. It
// checks what searching relies on: block counts, offsets and slots in range
// and increasing, and as many postings as the passages have terms.
func (ix *Index) decodePostings(m *manifest, tables, data *stream, want int) error {
	le := binary.LittleEndian
	blocks := make([]block, m.blocks)
	brows := tables.at(uint64(m.docs)*docRowSize + uint64(m.terms)*termRowSize)
	bi, total := 0, 0
	for t := range int(m.terms) {
		r := tables.next(termRowSize)
		n, dl := int(le.Uint32(r)), uint64(le.Uint32(r[4:]))
		nb := (n + blockSize - 1) / blockSize
		if nb > len(blocks)-bi || dl > data.left {
			return fmt.Errorf("%w: term %d overruns the postings", errSegment, t)
		}
		bs := blocks[bi : bi+nb : bi+nb]
		for j := range bs {
			r := brows.next(blockRowSize)
			bs[j] = block{last: le.Uint32(r), off: le.Uint32(r[4:]), maxTF: le.Uint32(r[8:]), minLen: le.Uint32(r[12:])}
		}
		if !blocksSane(bs, int(dl), m.docs) {
			return fmt.Errorf("%w: blocks of term %d out of order", errSegment, t)
		}
		d, more := data.nextList(int(dl), bs)
		ix.post[t] = postings{data: d, more: more, blocks: bs, n: n}
		ix.df[t] = uint32(n)
		bi, total = bi+nb, total+n
	}
	if bi != len(blocks) || data.left != 0 || total != want {
		return fmt.Errorf("%w: %d postings for %d passage terms", errSegment, total, want)
	}
	return nil
}

// blocksSane checks that block offsets start at 0 and grow within the
// list's dataLen bytes and that last slots grow and stay below docs.
func blocksSane(bs []block, dataLen int, docs uint32) bool {
	for j, b := range bs {
		if int(b.off) >= dataLen || b.last >= docs || (j == 0) != (b.off == 0) {
			return false
		}
		if j > 0 && (b.off <= bs[j-1].off || b.last <= bs[j-1].last) {
			return false
		}
	}
	return true
}

// resetPassages empties the passages and postings of an index being
// loaded, keeping its dictionary.
func (ix *Index) resetPassages() {
	ix.pre = nil
	ix.docs, ix.lens, ix.alive, ix.totalLen, ix.livePost, ix.deadPost = nil, nil, 0, 0, 0, 0
	ix.setSlots(make(map[uint64]uint32))
	clear(ix.df)
	clear(ix.post)
}
