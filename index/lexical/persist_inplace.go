package lexical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime/debug"
	"slices"
	"sort"
	"sync"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/internal/parallel"
)

// Reading a segment in place (see doc.go, Persistence). A KV wrapped by
// InPlace promises that the values its Get returns stay valid and
// unchanged after Load returns, until the index is told to let them go
// (Detach or Unload): a bbolt read transaction held open, whose values are
// slices of bbolt's read-only memory map of the file. Load then leaves the
// segment's packed terms and posting data in those values instead of
// copying them into memory of its own. Nothing ever writes into them: a
// passage's terms and a list's data are replaced, never changed in place,
// and every slice of them is cut with its capacity at its length, so an
// append copies.

// inPlaceKV marks a KV whose values Load may keep (InPlace).
type inPlaceKV struct{ index.KV }

// ReadAheader is a KV whose values lie in a memory-mapped file (a bbolt
// bucket) and that can ask the kernel to start reading a value's pages in
// the background: Load asks it for the segment's chunks before it reads
// them. bbolt maps its file for random access, so a cold read of the
// segment otherwise faults its pages in one at a time.
type ReadAheader interface {
	ReadAhead(value []byte)
}

// ReadAhead passes the hint on to the wrapped KV, when it takes it.
func (k inPlaceKV) ReadAhead(v []byte) {
	if r, ok := k.KV.(ReadAheader); ok {
		r.ReadAhead(v)
	}
}

// Populater is a KV whose values lie in a memory-mapped file and that can
// map a value's pages into the process at once: Load asks it for each
// chunk of the segment before it checks the chunk's bytes, which costs
// about half of faulting the pages in as the check reads them
// (store.Bucket.Populate).
type Populater interface {
	Populate(value []byte)
}

// Populate passes the request on to the wrapped KV, when it takes it.
func (k inPlaceKV) Populate(v []byte) {
	if p, ok := k.KV.(Populater); ok {
		p.Populate(v)
	}
}

// InPlace wraps kv for Load, LoadIDs and LoadSynced: the values kv.Get
// returns must stay valid and unchanged until the loaded index's Detach or
// Unload returns; Load keeps the segment's records and posting lists in
// them (InPlaceBytes lists those it keeps). Saving into the wrapped KV is
// the same as into kv.
func InPlace(kv index.KV) index.KV { return inPlaceKV{kv} }

// stream is a segment stream read as the chunks it was stored in, with a
// reader's position.
type stream struct {
	chunks [][]byte
	i, pos int    // the reader: chunk, offset in it
	left   uint64 // bytes after the reader
	ends   uint64 // the packed terms' stream: bytes that end a uvarint (verifyStream)
}

// segStream names a stream of the segment and what its manifest says of it.
type segStream struct {
	id  byte
	n   uint64
	crc uint32
}

// readStreams reads the segment's streams as their chunks and checks their
// CRC-32C, the streams on all CPUs. The tables, and every stream when
// inPlace, are kv's values; the others are copied into one allocation
// each, their only chunk. When inPlace, only the first stream (the
// tables) is checked before it returns; the others are checked on
// goroutines of their own meanwhile, so that decoding the tables overlaps
// them, and wait returns their result. The caller must call wait before
// the chunks may go, and use nothing it decoded when wait fails.
func readStreams(kv index.KV, specs []segStream, inPlace bool) (streams []*stream, wait func() error, err error) {
	if streams, err = gatherStreams(kv, specs); err != nil {
		return nil, nil, err
	}
	populate := func([]byte) {}
	if p, ok := kv.(Populater); ok {
		populate = p.Populate
	}
	errs := make([]error, len(specs))
	if !inPlace {
		parallel.Ranges(len(specs), 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				errs[i] = verifyStream(streams[i], specs[i], specs[i].id == streamTables, populate)
			}
		})
		return streams, func() error { return nil }, errors.Join(errs...)
	}
	var wg sync.WaitGroup
	for i := 1; i < len(specs); i++ {
		wg.Go(func() { errs[i] = verifyStream(streams[i], specs[i], true, populate) })
	}
	wait = func() error { wg.Wait(); return errors.Join(errs[1:]...) }
	if errs[0] = verifyStream(streams[0], specs[0], true, populate); errs[0] != nil {
		return nil, nil, errors.Join(errs[0], wait())
	}
	return streams, wait, nil
}

// gatherStreams gathers the chunks of each stream of specs and asks the
// kernel to read them ahead.
func gatherStreams(kv index.KV, specs []segStream) ([]*stream, error) {
	streams := make([]*stream, len(specs))
	for i, sp := range specs {
		chunks, err := gatherChunks(kv, sp.id, sp.n)
		if err != nil {
			return nil, err
		}
		streams[i] = &stream{chunks: chunks, left: sp.n}
	}
	if r, ok := kv.(ReadAheader); ok {
		for _, s := range streams {
			for _, c := range s.chunks {
				r.ReadAhead(c)
			}
		}
	}
	return streams, nil
}

// gatherChunks returns the chunks of stream id, n bytes in all.
func gatherChunks(kv index.KV, id byte, n uint64) ([][]byte, error) {
	var chunks [][]byte
	var got uint64
	for i := uint32(0); got < n; i++ {
		v := kv.Get(segChunkKey(id, i))
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: stream %c: chunk %d missing (%d of %d bytes read)", errSegment, id, i, got, n)
		}
		if uint64(len(v)) > n-got {
			return nil, fmt.Errorf("%w: stream %c longer than its manifest says", errSegment, id)
		}
		chunks = append(chunks, v[:len(v):len(v)])
		got += uint64(len(v))
	}
	return chunks, nil
}

// verifyStream checks s's CRC-32C, each chunk populated first, and, unless
// keep, copies it into one allocation. A memory fault reading the chunks (a
// file cut short under a memory map) is an error, as it is in the caller's
// goroutine (store's guard).
func verifyStream(s *stream, sp segStream, keep bool, populate func([]byte)) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: stream %c unreadable: %v", errSegment, sp.id, r)
		}
	}()
	sum := uint32(0)
	for _, c := range s.chunks {
		populate(c)
		sum = crc32.Update(sum, castagnoli, c)
		if sp.id == streamFwd {
			s.ends += varintEnds(c)
		}
	}
	if sum != sp.crc {
		return fmt.Errorf("%w: stream %c checksum mismatch", errSegment, sp.id)
	}
	if !keep {
		buf := make([]byte, 0, sp.n)
		for _, c := range s.chunks {
			buf = append(buf, c...)
		}
		s.chunks = [][]byte{buf}
	}
	return nil
}

// varintEnds counts the bytes of b below 0x80, each the last of a uvarint:
// their high bits are summed in the byte lanes of a word, 32 bytes at a
// time, and the lanes added up before any can overflow (~10 GB/s, twice a
// popcount a word).
func varintEnds(b []byte) uint64 {
	const high, lanes = 0x8080808080808080, 0x00ff00ff00ff00ff
	n := uint64(0)
	for len(b) >= 32 {
		var acc uint64
		for range min(len(b)/32, 63) { // a byte lane gains at most 4 a round
			w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
			w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
			acc += (^w0&high)>>7 + (^w1&high)>>7 + (^w2&high)>>7 + (^w3&high)>>7
			b = b[32:]
		}
		s := acc&lanes + acc>>8&lanes       // four 16-bit lanes
		n += (s * 0x0001000100010001) >> 48 // their sum, in the top lane
	}
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// at returns a reader of the same chunks positioned off bytes in (off must
// not exceed the stream's length).
func (s *stream) at(off uint64) *stream {
	r := &stream{chunks: s.chunks, left: s.left + s.consumed() - off}
	for r.i < len(r.chunks) && off >= uint64(len(r.chunks[r.i])) {
		off -= uint64(len(r.chunks[r.i]))
		r.i++
	}
	r.pos = int(off)
	return r
}

// consumed is how many bytes the reader has passed.
func (s *stream) consumed() uint64 {
	n := uint64(s.pos)
	for _, c := range s.chunks[:s.i] {
		n += uint64(len(c))
	}
	return n
}

// next returns the reader's next n bytes, n ≤ s.left, and moves past them:
// a slice of the chunk holding them, capacity cut at n, or a copy when they
// straddle chunks. Zero bytes are an empty slice, never nil (nil terms mark
// a deleted passage).
func (s *stream) next(n int) []byte {
	for s.i < len(s.chunks) && s.pos == len(s.chunks[s.i]) {
		s.i, s.pos = s.i+1, 0
	}
	s.left -= uint64(n)
	if n == 0 {
		return []byte{}
	}
	if c := s.chunks[s.i]; len(c)-s.pos >= n {
		s.pos += n
		return c[s.pos-n : s.pos : s.pos]
	}
	b := make([]byte, 0, n)
	for len(b) < n {
		if s.pos == len(s.chunks[s.i]) {
			s.i, s.pos = s.i+1, 0
		}
		k := min(len(s.chunks[s.i])-s.pos, n-len(b))
		b = append(b, s.chunks[s.i][s.pos:s.pos+k]...)
		s.pos += k
	}
	return b
}

// nextList returns the reader's next n bytes, n ≤ s.left, a posting list
// whose blocks are bs (checked by blocksSane), and moves past them. When
// they lie in one chunk, they come back as a slice of it (next) and more
// is nil. Otherwise they come back as pieces read in place, data the
// first: only a block that straddles two chunks is copied, into a piece
// of its own, so no block straddles two pieces (postings).
func (s *stream) nextList(n int, bs []block) (data []byte, more *[]piece) {
	for s.i < len(s.chunks) && s.pos == len(s.chunks[s.i]) {
		s.i, s.pos = s.i+1, 0
	}
	if n == 0 || len(s.chunks[s.i])-s.pos >= n || len(bs) == 0 || bs[0].off != 0 {
		return s.next(n), nil
	}
	var ps []piece
	for off := 0; off < n; {
		for s.pos == len(s.chunks[s.i]) {
			s.i, s.pos = s.i+1, 0
		}
		room := len(s.chunks[s.i]) - s.pos
		if n-off <= room {
			ps = append(ps, piece{uint32(off), s.next(n - off)})
			break
		}
		end := off + room // the chunk ends inside the list
		k := sort.Search(len(bs), func(i int) bool { return int(bs[i].off) > end }) - 1
		if start := int(bs[k].off); start > off { // the blocks wholly in the chunk, in place
			ps = append(ps, piece{uint32(off), s.next(start - off)})
			off = start
		}
		if off == end {
			continue
		}
		stop := n // block k straddles: copied
		if k+1 < len(bs) && int(bs[k+1].off) > end && int(bs[k+1].off) <= n {
			stop = int(bs[k+1].off)
		}
		ps = append(ps, piece{uint32(off), s.next(stop - off)})
		off = stop
	}
	if len(ps) == 1 { // one block, copied
		return ps[0].b, nil
	}
	rest := ps[1:len(ps):len(ps)]
	return ps[0].b, &rest
}

// readInPlace notes the chunks of fwd and post, the segment's streams of
// packed terms and posting lists, as what the index reads in place. The
// caller holds the write lock.
func (ix *Index) readInPlace(fwd, post *stream) {
	ix.inPlace = append(slices.Clip(fwd.chunks), post.chunks...)
	ix.inPlaceFwd = len(fwd.chunks)
}

// StillInPlace reports whether every value the index reads in place (see
// InPlace) is still kv's value of its key, at the same address. A store
// may move a value nobody changed: bbolt rewrites a whole leaf page, every
// value on it, when one of its keys is written, and frees the old page,
// which a later write reuses once the last reader that began before the
// move has ended. The index keeps reading the old value, so whoever holds
// that reader (store.Pin) may end it, for kv's, only while this reports
// true. It reports true for an index that reads nothing in place. It never
// waits for the index's lock (its caller may hold what a change under
// that lock waits for): while a change holds it, it reports false. It is
// safe for concurrent use.
func (ix *Index) StillInPlace(kv index.KV) bool {
	if !ix.mu.TryRLock() {
		return false
	}
	defer ix.mu.RUnlock()
	for i, b := range ix.inPlace {
		key := segChunkKey(streamFwd, uint32(i))
		if i >= ix.inPlaceFwd {
			key = segChunkKey(streamPost, uint32(i-ix.inPlaceFwd))
		}
		v := kv.Get(key)
		if len(v) != len(b) || len(v) > 0 && &v[0] != &b[0] {
			return false
		}
	}
	return true
}

// InPlaceBytes returns the values of the KV that the index reads in place
// (loaded through InPlace, not yet detached), nil when it reads none: what
// must stay mapped. It is safe for concurrent use.
func (ix *Index) InPlaceBytes() [][]byte {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.inPlace
}

// Detach copies everything the index reads in place (see InPlace) into
// memory of its own, after which the KV's values may go. It does nothing
// for an index that reads nothing in place. The copy is made under the read
// lock, so searches go on meanwhile; only if a change came in between is it
// made again under the write lock. It is safe for concurrent use.
func (ix *Index) Detach() {
	ix.mu.RLock()
	if ix.inPlace == nil {
		ix.mu.RUnlock()
		return
	}
	gen := ix.gen
	terms, data := ix.copyOut()
	ix.mu.RUnlock()
	if betweenCopies != nil {
		betweenCopies()
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.inPlace == nil {
		return
	}
	if ix.gen != gen {
		terms, data = ix.copyOut()
	}
	for s := range ix.docs {
		if ix.docs[s].terms != nil {
			ix.docs[s].terms = terms[s]
		}
	}
	for t := range ix.post {
		ix.post[t].data, ix.post[t].more, ix.post[t].tail, ix.post[t].fixed = data[t], nil, nil, false
	}
	ix.inPlace = nil
}

// betweenCopies, set by tests, runs in Detach between its copy and the
// write lock (where a change may come in).
var betweenCopies func()

// copyOut copies every passage's packed terms into one new allocation and
// every posting list's data into another, returning the copies by slot and
// by term. The caller holds the lock, at least for reading.
func (ix *Index) copyOut() (terms, data [][]byte) {
	nt, nd := 0, 0
	for s := range ix.docs {
		nt += len(ix.docs[s].terms)
	}
	for t := range ix.post {
		nd += ix.post[t].size()
	}
	ta, da := make([]byte, 0, nt), make([]byte, 0, nd)
	terms, data = make([][]byte, len(ix.docs)), make([][]byte, len(ix.post))
	for s := range ix.docs {
		ta = append(ta, ix.docs[s].terms...)
		terms[s] = ta[len(ta)-len(ix.docs[s].terms) : len(ta) : len(ta)]
	}
	for t := range ix.post {
		p := &ix.post[t]
		da = p.appendFrom(da, 0)
		data[t] = da[len(da)-p.size() : len(da) : len(da)]
	}
	return terms, data
}

// Unload empties the index and lets go of what it reads in place, copying
// nothing: what the KV's owner calls when the index will not be used again
// (the library is closing) and its values are about to go. Later searches
// find nothing. It is safe for concurrent use.
func (ix *Index) Unload() {
	ix.lock()
	defer ix.mu.Unlock()
	ix.inPlace = nil
	ix.resetPassages()
}

// lock takes the write lock for a change, which Detach notices.
func (ix *Index) lock() {
	ix.mu.Lock()
	ix.gen++
}
