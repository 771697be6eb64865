package vector

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"iter"
	"math"
	"slices"

	"github.com/mcpvec/mcpvec/index"
)

// Persistence format, version 2 (all integers little endian):
//
//	key "c"+u64be(id)  codes: u32 crc32c of the vector as given, f32 scale,
//	                   dim x i8 codes, u32 crc32c of the preceding bytes
//	key "h"            header: magic "HNSW", u16 version, u8 metric, u8 flags,
//	                   u32 dim, u32 M, u32 efConstruction, i32 maxLevel,
//	                   u64 entry id, u64 node count, u32 crc32c of the
//	                   preceding bytes
//	key "n"+u64be(id)  node: u8 level, u32 crc32c of the vector as given,
//	                   per layer 0..level: u16 count, count x u64 neighbour id;
//	                   u32 crc32c of the preceding bytes
//
// Version 1 had no "c" records; Load and LoadSums read it and the next Save
// writes version 2.
//
// Flag bit flagScan marks a bucket a Config.Scan index saved: it holds codes
// but no "n" records (maxLevel -1, entry 0). Builds before the flag ignore
// the byte (it was always 0) and, finding no nodes, insert every vector
// into a new graph, as a non-Scan open does now. A Scan index opened on a
// bucket without the flag deletes its "n" records on its first Save.
const (
	formatVersion = 2
	minVersion    = 1
	headerLen     = 4 + 2 + 1 + 1 + 4 + 4 + 4 + 4 + 8 + 8 + 4
	flagScan      = 1 // header flags: saved without a graph
)

var (
	headerKey = []byte("h")
	magic     = []byte("HNSW")
)

func nodeKey(id uint64) []byte { return recKey('n', id) }
func codeKey(id uint64) []byte { return recKey('c', id) }

func recKey(kind byte, id uint64) []byte {
	k := make([]byte, 9)
	k[0] = kind
	binary.BigEndian.PutUint64(k[1:], id)
	return k
}

// isRecKey reports whether k is a node or codes key.
func isRecKey(k []byte) bool { return len(k) == 9 && (k[0] == 'n' || k[0] == 'c') }

// isNodeKey reports whether k is a node key.
func isNodeKey(k []byte) bool { return len(k) == 9 && k[0] == 'n' }

// LoadStats reports what Load found and repaired, for logging.
type LoadStats struct {
	Vectors  int   // vectors read from the caller
	Nodes    int   // stored graph nodes read
	Inserted int   // vectors with no (or a stale) stored node, inserted into the graph
	Removed  int   // stored nodes whose vector is gone, unlinked and deleted on the next Save
	Repaired int   // neighbour lists rebuilt around removed nodes
	Rebuilt  bool  // the stored graph was unusable; the index was built from the vectors
	Upgraded bool  // the stored graph has an older format, or holds nodes a Scan index drops; the next Save rewrites it
	Read     int   // vectors read in full (LoadSums: those whose stored codes were missing or stale)
	Reason   error // why it was rebuilt: wraps ErrCorrupt or ErrIncompatible; nil if missing or usable
}

// Save writes what changed since the last Save or Load into kv: the codes
// of new vectors, the nodes whose links changed (a Config.Scan index
// writes none, and deletes any a graph build left), deletions of removed
// vectors and the header. The first Save of an index made by New, or
// rebuilt by Load, replaces every stored node (deleting any left in kv by
// an earlier graph). It first repairs pending tombstones.
// It holds the write lock for its duration. On error the index keeps its
// changes marked dirty, so the caller should roll back its transaction and
// may Save again. It returns errors from kv wrapped with context.
func (x *Index) Save(kv index.KV) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.repair()
	if err := x.deleteStale(kv); err != nil {
		return err
	}
	codes, nodes := x.unsavedSlots()
	for _, s := range codes {
		// A fresh buffer per record: bbolt keeps Put's value until commit.
		if err := kv.Put(codeKey(x.ids[s]), x.encodeCodes(s)); err != nil {
			return fmt.Errorf("put codes %d: %w", x.ids[s], err)
		}
	}
	for _, s := range nodes {
		buf := x.encodeNode(make([]byte, 0, 1+4+4+2+8*x.m0), s)
		if err := kv.Put(nodeKey(x.ids[s]), buf); err != nil {
			return fmt.Errorf("put node %d: %w", x.ids[s], err)
		}
	}
	header := x.encodeHeader()
	if err := kv.Put(headerKey, header); err != nil {
		return fmt.Errorf("put header: %w", err)
	}
	x.header = header
	clear(x.dirty)
	clear(x.fresh)
	clear(x.removed)
	x.rewrite, x.dropNodes = false, false
	return nil
}

// unsavedSlots returns the live slots whose codes and whose node Save must
// write, each in ascending id order. The order matters to bbolt: within a
// transaction a leaf is split only at commit, so keys put into a fresh
// bucket pile up in one in-memory node, and a put in its middle moves every
// key after it. Putting each slot's codes and node in turn ('c' keys sort
// before 'n' keys) made the first save of a million-node graph quadratic:
// 1,300 s in BenchmarkScale; in key order it appends.
func (x *Index) unsavedSlots() (codes, nodes []uint32) {
	for s := uint32(0); int(s) < x.n; s++ {
		if x.state[s] != stateLive {
			continue
		}
		if x.fresh[s] || x.rewrite {
			codes = append(codes, s)
		}
		if (x.dirty[s] || x.rewrite) && !x.cfg.Scan {
			nodes = append(nodes, s)
		}
	}
	byID := func(a, b uint32) int { return cmp.Compare(x.ids[a], x.ids[b]) }
	if !slices.IsSortedFunc(codes, byID) {
		slices.SortFunc(codes, byID)
	}
	if !slices.IsSortedFunc(nodes, byID) {
		slices.SortFunc(nodes, byID)
	}
	return codes, nodes
}

// Unsaved reports whether Save would write anything that is not in kv
// already: a node added, relinked or removed, a deleted node still to be
// unlinked, a header that changed, stored nodes a Scan index drops, or the
// whole graph (a new, rebuilt or upgraded index). A caller may skip a
// Save, and its transaction, while it reports false. It takes the write lock briefly (it reads every slot's
// flags: under a millisecond at a million vectors); it is safe for
// concurrent use.
func (x *Index) Unsaved() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.rewrite || x.dropNodes || x.tombs > 0 || len(x.removed) > 0 {
		return true
	}
	if slices.Contains(x.dirty[:x.n], true) || slices.Contains(x.fresh[:x.n], true) {
		return true
	}
	return !bytes.Equal(x.encodeHeader(), x.header)
}

// deleteStale deletes the records of removed ids, and every record when the
// index must rewrite the bucket (every node record when it drops them).
func (x *Index) deleteStale(kv index.KV) error {
	switch {
	case x.rewrite:
		if err := deleteRecords(kv, isRecKey); err != nil {
			return err
		}
	case x.dropNodes:
		if err := deleteRecords(kv, isNodeKey); err != nil {
			return err
		}
	}
	for id := range x.removed {
		if err := kv.Delete(nodeKey(id)); err != nil {
			return fmt.Errorf("delete node %d: %w", id, err)
		}
		if err := kv.Delete(codeKey(id)); err != nil {
			return fmt.Errorf("delete codes %d: %w", id, err)
		}
	}
	return nil
}

// deleteRecords deletes every key of kv that stale accepts.
func deleteRecords(kv index.KV, stale func(k []byte) bool) error {
	if err := index.DeleteMatching(kv, stale); err != nil {
		return fmt.Errorf("delete stored nodes: %w", err)
	}
	return nil
}

// encodeCodes returns slot s's codes record.
func (x *Index) encodeCodes(s uint32) []byte {
	b := make([]byte, 0, 4+4+x.dim+4)
	b = binary.LittleEndian.AppendUint32(b, x.crcs[s])
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x.scales[s]))
	for _, c := range x.code(s).codes {
		b = append(b, byte(c))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// decodeCodes checks a codes record of dim codes and returns its vector
// checksum, scale and codes (aliasing b).
func decodeCodes(b []byte, dim int) (crc uint32, scale float32, codes []byte, err error) {
	if len(b) != 4+4+dim+4 || crc32.Checksum(b[:len(b)-4], crcTable) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return 0, 0, nil, ErrCorrupt
	}
	return binary.LittleEndian.Uint32(b), math.Float32frombits(binary.LittleEndian.Uint32(b[4:])), b[8 : 8+dim], nil
}

func (x *Index) encodeHeader() []byte {
	b := make([]byte, 0, headerLen)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	var flags byte
	if x.cfg.Scan {
		flags |= flagScan
	}
	b = append(b, byte(x.cfg.Metric), flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(x.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(x.m))
	b = binary.LittleEndian.AppendUint32(b, uint32(x.cfg.EfConstruction))
	var entry uint64
	top := int32(-1)
	if x.ep >= 0 {
		entry, top = x.ids[x.ep], int32(x.maxLevel)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(top))
	b = binary.LittleEndian.AppendUint64(b, entry)
	b = binary.LittleEndian.AppendUint64(b, uint64(x.live))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

func (x *Index) encodeNode(b []byte, s uint32) []byte {
	b = append(b, x.levels[s])
	b = binary.LittleEndian.AppendUint32(b, x.crcs[s])
	var nb []uint32
	for l := 0; l <= int(x.levels[s]); l++ {
		nb = x.neighbours(nb[:0], s, l)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(nb)))
		for _, n := range nb {
			b = binary.LittleEndian.AppendUint64(b, x.ids[n])
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// header is the decoded header record.
type header struct {
	metric   Metric
	dim, m   int
	efc      int
	maxLevel int
	entry    uint64
	count    int
	version  int
	scan     bool // saved by a Scan index: no node records
}

func decodeHeader(b []byte) (header, error) {
	var h header
	if len(b) != headerLen || !bytes.Equal(b[:4], magic) {
		return h, fmt.Errorf("header: %w", ErrCorrupt)
	}
	if crc32.Checksum(b[:headerLen-4], crcTable) != binary.LittleEndian.Uint32(b[headerLen-4:]) {
		return h, fmt.Errorf("header checksum: %w", ErrCorrupt)
	}
	h.version = int(binary.LittleEndian.Uint16(b[4:]))
	if h.version < minVersion || h.version > formatVersion {
		return h, fmt.Errorf("format version %d: %w", h.version, ErrIncompatible)
	}
	h.metric = Metric(b[6])
	h.scan = b[7]&flagScan != 0
	h.dim = int(binary.LittleEndian.Uint32(b[8:]))
	h.m = int(binary.LittleEndian.Uint32(b[12:]))
	h.efc = int(binary.LittleEndian.Uint32(b[16:]))
	h.maxLevel = int(int32(binary.LittleEndian.Uint32(b[20:])))
	h.entry = binary.LittleEndian.Uint64(b[24:])
	h.count = int(binary.LittleEndian.Uint64(b[32:]))
	return h, nil
}

// nodeRec is a node record whose checksum and shape have been verified.
type nodeRec struct {
	level int
	crc   uint32
	links [][]byte // per layer: count x u64 ids
}

func decodeNode(b []byte, m, m0 int) (nodeRec, error) {
	level, crc, p, err := checkNode(b, m, m0)
	r := nodeRec{level: level, crc: crc}
	if err != nil {
		return r, err
	}
	for l := 0; l <= r.level; l++ {
		n := int(binary.LittleEndian.Uint16(p))
		r.links = append(r.links, p[2:2+8*n])
		p = p[2+8*n:]
	}
	return r, nil
}

// checkNode verifies a node record's checksum and shape and returns its
// level, vector checksum and links (per layer: u16 count, count x u64 id),
// aliasing b.
func checkNode(b []byte, m, m0 int) (level int, crc uint32, links []byte, err error) {
	if len(b) < 1+4+2+4 {
		return 0, 0, nil, ErrCorrupt
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return 0, 0, nil, ErrCorrupt
	}
	level, crc = int(body[0]), binary.LittleEndian.Uint32(body[1:])
	if level > maxLevel {
		return 0, 0, nil, ErrCorrupt
	}
	links = body[5:]
	p := links
	for l := 0; l <= level; l++ {
		if len(p) < 2 {
			return 0, 0, nil, ErrCorrupt
		}
		n := int(binary.LittleEndian.Uint16(p))
		limit := m
		if l == 0 {
			limit = m0
		}
		if n > limit || len(p) < 2+8*n {
			return 0, 0, nil, ErrCorrupt
		}
		p = p[2+8*n:]
	}
	if len(p) != 0 {
		return 0, 0, nil, ErrCorrupt
	}
	return level, crc, links, nil
}

// Load builds an index from the graph Save stored in kv and from vectors, the
// source of truth (id -> vector as originally given to Add). It reads the
// stored graph rather than re-inserting, and reconciles: vectors without a
// stored node, or whose stored checksum differs, are inserted; stored nodes
// without a vector are unlinked (their neighbours repaired) and deleted from
// kv on the next Save. A missing, corrupt or incompatible graph is rebuilt
// from the vectors (in parallel); LoadStats says what happened. With
// cfg.Scan it builds no graph and reads no node records (see finishScan);
// the codes records tell which codes are saved already. Load returns
// ErrInvalidDimension, ErrDimensionMismatch or ErrInvalidVector (wrapped with
// the offending id) for bad vectors, and errors from kv.ForEach. The vectors
// sequence cannot report an error: callers check their own iteration error.
func Load(kv index.KV, dim int, cfg Config, vectors iter.Seq2[uint64, []float32]) (*Index, LoadStats, error) {
	x := New(dim, cfg)
	var st LoadStats
	if dim < 1 {
		return nil, st, ErrInvalidDimension
	}
	h, herr := x.readHeader(kv)
	if herr == nil {
		x.grow(h.count + h.count/64 + 1)
	}
	x.loadBuf = make([]float32, dim)
	err := x.readVectors(vectors)
	x.loadBuf = nil
	if err != nil {
		return nil, st, err
	}
	st.Vectors = x.n
	if x.cfg.Scan {
		return x.loadScan(kv, herr, h, &st)
	}
	if herr == nil {
		herr = x.readGraph(kv, h, &st)
		if herr != nil && !errors.Is(herr, ErrCorrupt) {
			return nil, st, fmt.Errorf("read stored graph: %w", herr)
		}
	}
	x.clearFresh()
	x.finishLoad(herr, h, &st)
	return x, st, nil
}

// finishLoad rebuilds the graph from the vectors when herr says the stored
// one is missing or unusable; otherwise it repairs around the removed
// nodes and links the vectors that have no node.
func (x *Index) finishLoad(herr error, h header, st *LoadStats) {
	if herr != nil {
		if !errors.Is(herr, errMissing) {
			st.Reason = herr
		}
		st.Rebuilt = true
		x.resetGraph()
		st.Inserted = x.linkPending()
		return
	}
	x.rewrite = h.version < formatVersion
	st.Upgraded = x.rewrite
	st.Repaired = x.repair()
	st.Inserted = x.linkPending()
}

// clearFresh marks the codes of live nodes read from a stored graph as
// saved: the "c" record was written with the node's.
func (x *Index) clearFresh() {
	for s := 0; s < x.n; s++ {
		if x.state[s] == stateLive {
			x.fresh[s] = false
		}
	}
}

var errMissing = errors.New("no stored graph")

// readVectors copies every vector into the slab (unlinked, not yet live).
func (x *Index) readVectors(vectors iter.Seq2[uint64, []float32]) error {
	for id, v := range vectors {
		if len(v) != x.dim {
			return fmt.Errorf("vector %d: %w", id, ErrDimensionMismatch)
		}
		if s, ok := x.byID[id]; ok { // a repeated id: the last vector wins
			if err := x.setVector(s, v); err != nil {
				return fmt.Errorf("vector %d: %w", id, err)
			}
			continue
		}
		if x.n == len(x.ids) {
			x.grow(x.n + 1)
		}
		s := uint32(x.n)
		x.n++
		if err := x.setVector(s, v); err != nil {
			return fmt.Errorf("vector %d: %w", id, err)
		}
		x.byID[id] = s
		x.ids[s] = id
	}
	return nil
}

// setVector validates v and stores it (normalised under Cosine) in slot s.
func (x *Index) setVector(s uint32, v []float32) error {
	dst := x.loadBuf
	if x.vecs != nil {
		dst = x.vec(s)
	}
	if err := prepareInto(dst, v, x.cfg.Metric); err != nil {
		return err
	}
	x.scales[s] = quantize(x.code(s).codes, dst)
	x.crcs[s] = vecCRC(v)
	x.fresh[s] = true
	return nil
}
