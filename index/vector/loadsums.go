package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"unsafe"

	"github.com/mcpvec/mcpvec/index"
)

// ReadFunc reads vectors by id as a Source does: fn(i, vec) for each ids[i]
// that has one, vec valid only during the call.
type ReadFunc func(ids []uint64, fn func(i int, vec []float32)) error

// LoadSums is Load for an index with a Config.Source: instead of every
// vector it takes sums, each stored vector's id and the crc32c of its
// little-endian float32 bytes (what the store keeps beside the vector), and
// reads back from the stored graph the int8 codes Save wrote with it. Only
// vectors whose codes are missing or stale (added or changed since the last
// Save, or every one for a graph of format 1) are read in full, through
// read. It reconciles like Load: ids without a stored node are inserted,
// stored nodes of ids not in sums are unlinked, and an unusable graph is
// rebuilt (LoadStats.Reason says why). With cfg.Scan it reads only the
// codes: it neither reads nor builds a graph (see finishScan). It returns
// an error when cfg.Source is nil, ErrInvalidDimension,
// ErrDimensionMismatch or ErrInvalidVector for a bad vector read, and
// errors from kv or read, wrapped.
func LoadSums(kv index.KV, dim int, cfg Config, sums iter.Seq2[uint64, uint32], read ReadFunc) (*Index, LoadStats, error) {
	var st LoadStats
	if cfg.Source == nil {
		return nil, st, errors.New("index: LoadSums needs a Config.Source")
	}
	if dim < 1 {
		return nil, st, ErrInvalidDimension
	}
	x := New(dim, cfg)
	h, herr := x.readHeader(kv)
	if herr == nil {
		x.grow(h.count + h.count/64 + 1)
		x.byID = make(map[uint64]uint32, h.count)
	}
	ld := x.readSums(sums)
	st.Vectors = x.n
	if herr == nil {
		herr = ld.readRecords(kv, h.version >= 2, h.count)
		if herr != nil && !errors.Is(herr, ErrCorrupt) {
			return nil, st, fmt.Errorf("read stored graph: %w", herr)
		}
	}
	var err error
	if st.Read, err = ld.readMissing(read); err != nil {
		return nil, st, err
	}
	if x.cfg.Scan {
		x.finishScan(herr, h, &st)
		return x, st, nil
	}
	if herr == nil {
		herr = ld.resolve(h, &st)
	}
	x.finishLoad(herr, h, &st)
	return x, st, nil
}

// readHeader reads and checks the stored header against the index's
// parameters; errMissing when there is none.
func (x *Index) readHeader(kv index.KV) (header, error) {
	raw := kv.Get(headerKey)
	if raw == nil {
		return header{}, errMissing
	}
	h, err := decodeHeader(raw)
	if err == nil && (h.dim != x.dim || h.metric != x.cfg.Metric || h.m != x.m) {
		err = fmt.Errorf("stored dim %d metric %v M %d, want dim %d metric %v M %d: %w",
			h.dim, h.metric, h.m, x.dim, x.cfg.Metric, x.m, ErrIncompatible)
	}
	if err == nil {
		x.header = bytes.Clone(raw)
	}
	return h, err
}

// loader is LoadSums's state: which slots have codes, the stored nodes
// waiting for their links to be resolved (in one arena, not a slice each),
// and a dense id -> slot table when the ids are (as the store's sequence
// numbers are) mostly contiguous.
type loader struct {
	x       *Index
	hasCode []bool
	nodes   []storedNode
	arena   []uint32 // links as slots, or unknown|i for the id unknown[i]
	unknown []uint64 // link ids with no vector slot when read
	base    uint64
	dense   []uint32          // slot+1 of id base+i; 0 means none
	extra   map[uint64]uint32 // placeholder slots of stored nodes
	level   []int8            // per slot: its stored node's level, -1 for none
}

// unknownLink marks an arena entry that indexes loader.unknown.
const unknownLink = 1 << 31

// storedNode is a node record whose checksum and shape were verified; its
// links (per layer: a count, then count links) are arena[off:end].
type storedNode struct {
	id       uint64
	crc      uint32
	level    uint8
	slot     uint32
	off, end int
}

// readSums gives every id of sums a slot holding its checksum.
func (x *Index) readSums(sums iter.Seq2[uint64, uint32]) *loader {
	for id, sum := range sums {
		s, ok := x.byID[id]
		if !ok {
			if x.n == len(x.ids) {
				x.grow(x.n + 1)
			}
			s = uint32(x.n)
			x.n++
			x.byID[id] = s
			x.ids[s] = id
		}
		x.crcs[s] = sum
	}
	ld := &loader{x: x, hasCode: make([]bool, x.n), extra: map[uint64]uint32{}}
	ld.index()
	return ld
}

// index builds the dense id -> slot table when it costs at most a few
// words per vector.
func (ld *loader) index() {
	x := ld.x
	if x.n == 0 {
		return
	}
	lo, hi := x.ids[0], x.ids[0]
	for _, id := range x.ids[:x.n] {
		lo, hi = min(lo, id), max(hi, id)
	}
	if hi-lo >= uint64(4*x.n+1024) {
		return
	}
	ld.base = lo
	ld.dense = make([]uint32, hi-lo+1)
	for s, id := range x.ids[:x.n] {
		ld.dense[id-lo] = uint32(s) + 1
	}
}

// slot returns id's slot: a vector of sums, or a stored node's placeholder.
func (ld *loader) slot(id uint64) (uint32, bool) {
	if ld.dense != nil {
		if i := id - ld.base; id >= ld.base && i < uint64(len(ld.dense)) && ld.dense[i] != 0 {
			return ld.dense[i] - 1, true
		}
	} else if s, ok := ld.x.byID[id]; ok {
		return s, true
	}
	s, ok := ld.extra[id]
	return s, ok
}

// readRecords reads the stored codes (when withCodes) and nodes (unless
// the index is a Scan index), of about count nodes. Codes matching their
// vector's checksum fill its slot; a damaged codes record only means that
// vector is read in full. It returns an error wrapping ErrCorrupt for a
// damaged node record.
func (ld *loader) readRecords(kv index.KV, withCodes bool, count int) error {
	x := ld.x
	if !x.cfg.Scan { // a Scan index skips the node records
		// Room for full layer-0 lists and the upper layers' share (a node
		// has an upper layer with probability 1/M), so the arena rarely grows.
		ld.arena = make([]uint32, 0, count*(x.m0+1)+count/max(x.m-1, 1)*(x.m+1))
		ld.nodes = make([]storedNode, 0, count)
	}
	return kv.ForEach(func(k, v []byte) error {
		if !isRecKey(k) || k[0] == 'n' && x.cfg.Scan {
			return nil
		}
		id := binary.BigEndian.Uint64(k[1:])
		if k[0] == 'c' {
			if withCodes {
				ld.readCodes(id, v)
			}
			return nil
		}
		level, crc, links, err := checkNode(v, x.m, x.m0)
		if err != nil {
			return fmt.Errorf("node %d: %w", id, err)
		}
		off := len(ld.arena)
		ld.appendLinks(links, level)
		ld.nodes = append(ld.nodes, storedNode{id: id, crc: crc, level: uint8(level), off: off, end: len(ld.arena)})
		return nil
	})
}

// appendLinks appends a checked node record's links (per layer 0..level:
// u16 count, count x u64 ids) to the arena, each id turned into its vector
// slot now, while the record is at hand, or kept aside when it has none.
func (ld *loader) appendLinks(p []byte, level int) {
	for range level + 1 {
		n := int(binary.LittleEndian.Uint16(p))
		ld.arena = append(ld.arena, uint32(n))
		for i := range n {
			id := binary.LittleEndian.Uint64(p[2+8*i:])
			if s, ok := ld.slot(id); ok {
				ld.arena = append(ld.arena, s)
			} else {
				ld.arena = append(ld.arena, unknownLink|uint32(len(ld.unknown)))
				ld.unknown = append(ld.unknown, id)
			}
		}
		p = p[2+8*n:]
	}
}

// readCodes takes a codes record for id's slot if it matches its checksum;
// a record of an id with no vector is deleted on the next Save.
func (ld *loader) readCodes(id uint64, v []byte) {
	x := ld.x
	s, ok := ld.slot(id)
	if !ok {
		x.removed[id] = struct{}{}
		return
	}
	crc, scale, codes, err := decodeCodes(v, x.dim)
	if err != nil || crc != x.crcs[s] {
		return
	}
	copy(x.code(s).codes, unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(codes))), len(codes)))
	x.scales[s] = scale
	ld.hasCode[s] = true
}

// readMissing reads, through read, the vectors of every slot that has no
// codes yet, and returns how many it read. A vector read cannot supply is
// dropped from the index.
func (ld *loader) readMissing(read ReadFunc) (int, error) {
	x := ld.x
	var ids []uint64
	for s, ok := range ld.hasCode {
		if !ok {
			ids = append(ids, x.ids[s])
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	x.loadBuf = make([]float32, x.dim)
	defer func() { x.loadBuf = nil }()
	var ferr error
	err := read(ids, func(i int, v []float32) {
		s, ok := ld.slot(ids[i])
		switch {
		case ferr != nil || !ok:
		case len(v) != x.dim:
			ferr = fmt.Errorf("vector %d: %w", ids[i], ErrDimensionMismatch)
		default:
			if ferr = x.setVector(s, v); ferr != nil {
				ferr = fmt.Errorf("vector %d: %w", ids[i], ferr)
			}
			ld.hasCode[s] = true
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return 0, fmt.Errorf("read vectors: %w", err)
	}
	for _, id := range ids {
		if s, _ := ld.slot(id); !ld.hasCode[s] {
			delete(x.byID, id)
			ld.dense = nil // slot() falls back to byID, which no longer has id
		}
	}
	return len(ids), nil
}

// resolve makes the stored nodes whose vector is unchanged live and the
// others tombstone placeholders, then turns their stored links into slots.
// It returns an error wrapping ErrCorrupt for a bad link.
func (ld *loader) resolve(h header, st *LoadStats) error {
	x := ld.x
	nsums := len(ld.hasCode)
	for i := range ld.nodes {
		nd := &ld.nodes[i]
		s, ok := ld.slot(nd.id)
		ok = ok && int(s) < nsums
		if ok && ld.hasCode[s] && x.crcs[s] == nd.crc && x.state[s] == stateFree {
			x.state[s] = stateLive
		} else {
			s = x.placeholder(nd.id, ok)
			ld.extra[nd.id] = s
		}
		x.levels[s] = nd.level
		if nd.level > 0 {
			x.upper[s] = make([]uint32, int(nd.level)*(x.m+1))
		}
		nd.slot = s
	}
	ld.level = make([]int8, x.n)
	for i := range ld.level {
		ld.level[i] = -1
	}
	for _, nd := range ld.nodes {
		ld.level[nd.slot] = int8(nd.level)
	}
	st.Nodes = len(ld.nodes)
	st.Removed = len(x.removed)
	var buf []uint32
	for _, nd := range ld.nodes {
		var err error
		if buf, err = ld.link(nd, buf); err != nil {
			return err
		}
	}
	x.chooseEntry(ld.slot, h)
	return nil
}

// link sets the neighbour lists of a resolved stored node. Links to ids
// with no stored node are dropped (the node is marked dirty).
func (ld *loader) link(nd storedNode, buf []uint32) ([]uint32, error) {
	x := ld.x
	s := nd.slot
	p := ld.arena[nd.off:nd.end]
	for l := 0; l <= int(nd.level); l++ {
		n := int(p[0])
		raw := p[1 : 1+n]
		p = p[1+n:]
		buf = buf[:0]
		dirty := x.dirty[s]
		for _, t := range raw {
			if t&unknownLink != 0 {
				var ok bool
				if t, ok = ld.slot(ld.unknown[t&^unknownLink]); !ok {
					dirty = true
					continue
				}
			}
			if lv := ld.level[t]; lv < 0 {
				dirty = true
				continue
			} else if t == s || int(lv) < l {
				return buf, fmt.Errorf("node %d layer %d: bad link: %w", nd.id, l, ErrCorrupt)
			}
			buf = append(buf, t)
		}
		x.setList(s, l, buf)
		x.dirty[s] = dirty
	}
	return buf, nil
}
