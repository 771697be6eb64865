package lexical

import (
	"sync/atomic"
	"time"
)

// The map from passage id to slot (Index.slot). A load from a segment whose
// ids ascend leaves it unbuilt (setDocs): the passages are known to be
// distinct, and only writes, filtered searches and Save look a passage up
// by id. slots builds it the first time it is needed, and a load starts
// that build in the background a little later (buildSlotsSoon), so that
// the first write or filtered search rarely waits for it and the build
// (0.2 s of CPU at 1M passages) does not compete with serve's start.

// slots returns the map from passage id to slot, building it first when a
// load left it unbuilt. The caller holds ix.mu, at least for reading; the
// map may be changed only under the write lock.
func (ix *Index) slots() map[uint64]uint32 {
	if ix.slotLate.Load() {
		ix.buildSlots()
	}
	return ix.slot
}

// buildSlots builds the map from the live passages, once, whichever
// reader gets there first; the others wait for it. The caller holds ix.mu,
// at least for reading, so no writer changes ix.docs meanwhile.
func (ix *Index) buildSlots() {
	ix.slotBuild.Lock()
	defer ix.slotBuild.Unlock()
	if !ix.slotLate.Load() {
		return
	}
	if h := slotsBuilt.Load(); h != nil {
		(*h)(ix)
	}
	m := make(map[uint64]uint32, ix.alive)
	for s := range ix.docs {
		if d := &ix.docs[s]; d.alive {
			m[d.id] = uint32(s)
		}
	}
	ix.slot = m
	ix.slotLate.Store(false)
}

// setSlots makes m the map from id to slot. The caller holds the write
// lock (or owns an index still loading).
func (ix *Index) setSlots(m map[uint64]uint32) {
	ix.slot = m
	ix.slotLate.Store(false)
}

// buildSlotsSoon builds the map slotsAfter from now, in a goroutine of its
// own, under the read lock, when a load left it unbuilt.
func (ix *Index) buildSlotsSoon() {
	if !ix.slotLate.Load() || noSlotsSoon.Load() {
		return
	}
	time.AfterFunc(slotsAfter, func() {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		ix.slots()
	})
}

// slotsAfter is how long after a load the map is built in the background.
const slotsAfter = 2 * time.Second

// noSlotsSoon turns the background build off (tests).
var noSlotsSoon atomic.Bool

// slotsBuilt, set by tests, runs each time an index builds its map from its
// passages (also on the background builds of other tests' indexes).
var slotsBuilt atomic.Pointer[func(*Index)]
