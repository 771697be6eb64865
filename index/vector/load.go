package vector

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/internal/parallel"
)

// loadedNode is a verified stored node waiting for its links to be resolved.
type loadedNode struct {
	slot  uint32
	links [][]byte
}

// readGraph reads every stored node. Nodes whose vector exists with the same
// checksum become live; the others get tombstone placeholder slots so that
// repair can unlink them. It returns an error wrapping ErrCorrupt when a
// record or link fails validation. Single-goroutine (Load only).
func (x *Index) readGraph(kv index.KV, h header, st *LoadStats) error {
	recSlot := make(map[uint64]uint32, x.n)
	var nodes []loadedNode
	err := kv.ForEach(func(k, v []byte) error {
		if len(k) != 9 || k[0] != 'n' {
			return nil
		}
		id := binary.BigEndian.Uint64(k[1:])
		rec, err := decodeNode(v, x.m, x.m0)
		if err != nil {
			return fmt.Errorf("node %d: %w", id, err)
		}
		s, ok := x.byID[id]
		if ok && x.crcs[s] == rec.crc && x.state[s] == stateFree {
			x.state[s] = stateLive
		} else {
			s = x.placeholder(id, ok)
		}
		recSlot[id] = s
		x.levels[s] = uint8(rec.level)
		if rec.level > 0 {
			x.upper[s] = make([]uint32, rec.level*(x.m+1))
		}
		for i := range rec.links {
			rec.links[i] = bytes.Clone(rec.links[i])
		}
		nodes = append(nodes, loadedNode{s, rec.links})
		return nil
	})
	if err != nil {
		return err
	}
	st.Nodes = len(nodes)
	st.Removed = len(x.removed)
	for _, nd := range nodes {
		if err := x.resolveLinks(nd, recSlot); err != nil {
			return err
		}
	}
	x.chooseEntry(func(id uint64) (uint32, bool) { s, ok := recSlot[id]; return s, ok }, h)
	return nil
}

// placeholder allocates a tombstone slot for a stored node that has no vector
// (hasVector false: its key is deleted on Save) or a changed one.
func (x *Index) placeholder(id uint64, hasVector bool) uint32 {
	if x.n == len(x.ids) {
		x.grow(x.n + 1)
	}
	s := uint32(x.n)
	x.n++
	x.ids[s] = id
	x.state[s] = stateTomb
	x.tombs++
	if !hasVector {
		x.removed[id] = struct{}{}
	}
	return s
}

// resolveLinks turns stored neighbour ids into slots. Links to ids with no
// stored node are dropped (the node is marked dirty).
func (x *Index) resolveLinks(nd loadedNode, recSlot map[uint64]uint32) error {
	var buf []uint32
	for l, raw := range nd.links {
		buf = buf[:0]
		for i := 0; i < len(raw); i += 8 {
			t, ok := recSlot[binary.LittleEndian.Uint64(raw[i:])]
			if !ok {
				x.dirty[nd.slot] = true
				continue
			}
			if t == nd.slot || int(x.levels[t]) < l {
				return fmt.Errorf("node %d layer %d: bad link: %w", x.ids[nd.slot], l, ErrCorrupt)
			}
			buf = append(buf, t)
		}
		d := x.dirty[nd.slot]
		x.setList(nd.slot, l, buf)
		x.dirty[nd.slot] = d
	}
	return nil
}

// chooseEntry takes the stored entry point if it is a node of the top level,
// otherwise any node of the highest level.
func (x *Index) chooseEntry(slot func(id uint64) (uint32, bool), h header) {
	x.ep, x.maxLevel = -1, -1
	if s, ok := slot(h.entry); ok && x.state[s] == stateLive {
		x.ep, x.maxLevel = int64(s), int(x.levels[s])
	}
	for s := 0; s < x.n; s++ {
		if x.state[s] == stateLive && int(x.levels[s]) > x.maxLevel {
			x.ep, x.maxLevel = int64(s), int(x.levels[s])
		}
	}
}

// resetGraph drops everything but the vectors read from the caller (the
// slots byID names; the others are freed); the next Save rewrites every node.
func (x *Index) resetGraph() {
	x.free = x.free[:0]
	for s := 0; s < x.n; s++ {
		x.state[s] = stateFree
		x.upper[s] = nil
		x.levels[s] = 0
		if bs, ok := x.byID[x.ids[s]]; !ok || bs != uint32(s) {
			x.free = append(x.free, uint32(s))
		}
	}
	clear(x.links0)
	x.tombs = 0
	clear(x.removed)
	x.ep, x.maxLevel = -1, -1
	x.rewrite = true
}

// linkPending inserts every vector slot that is not yet in the graph, using
// all CPUs when there are many. It returns how many it inserted. Load only.
func (x *Index) linkPending() int {
	var pending []uint32
	for _, s := range x.byID {
		if x.state[s] == stateFree {
			pending = append(pending, s)
		}
	}
	// Map order is random; sort for deterministic single-goroutine builds.
	slicesSortU32(pending)
	x.live = len(x.byID)
	if len(pending) < 4096 {
		for _, s := range pending {
			x.state[s] = stateLive
			x.link(s, x.randomLevel())
		}
		return len(pending)
	}
	parallel.Ranges(len(pending), 1, func(lo, hi int) {
		for _, s := range pending[lo:hi] {
			atomic.StoreUint32(&x.state[s], stateLive)
			x.link(s, x.randomLevel())
		}
	})
	return len(pending)
}
