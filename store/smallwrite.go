package store

import (
	"bytes"
	"os"
	"runtime"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A write of a few records (sign-in state, a setting) need not evict the
// pins (Pin) when it cannot make bbolt remap the file: bbolt remaps only
// when a commit needs pages past the end of its memory map, and a pinned
// read blocks only a remap. Keeping them spares an index the copy of what
// it reads in place: at a million passages a ChatGPT connector's first
// sign-in copied ~800 MB into the heap. What a pin costs a write meanwhile:
// pages freed while it is held are not reused until it ends, so the file
// grows by the few pages each such write touches, until the room left in
// the map runs out and the next write evicts as any other does.

// smallWriteRoom is how much of the memory map must lie past the file's
// data for a small write to keep the pins: far more than a few records and
// the freelist's rewrite need (a variable for tests).
var smallWriteRoom int64 = 16 << 20

// defaultMapRoom is Options.MapRoom's default, for files at least as large.
const defaultMapRoom = 64 << 20

// mapSizeAtOpen is bbolt's InitialMmapSize for a writable open of path
// with Options.MapRoom room (0 leaves bbolt's own).
func mapSizeAtOpen(path string, room int64) int {
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	if room == 0 && size >= defaultMapRoom {
		room = defaultMapRoom
	}
	if room <= 0 {
		return 0
	}
	return int(size + room)
}

// A document write (PutDocument, RemoveDocument, MoveDocument) and an
// index save that fit in the room left in the map keep the pins the same
// way (updateSized, UpdateSized): the first write of a process to a
// library whose BM25 index reads its segment in place then adds records
// and tombstones beside it instead of copying the whole segment out of the
// map first (about a second at a million passages when the file's pages
// are cached, most of a cold `mcpvec rm`'s 6.4 s when they are not).

// smallWriteWait is how long a small write that kept the pins may take
// before the backstop looks whether it grew past the map anyway and waits
// for the pinned reads to end (remapping), and evicts them if so; then
// again every quarter of it while the write runs (a variable for tests).
// Searches that begin a read meanwhile wait too, so it is short. A write
// that is only slow (a sync behind other I/O, a busy CPU) keeps the pins:
// evicting them at a fixed time made a loaded host's ingest copy its whole
// BM25 segment out of the map at most segment writes
// (docs/benchmarks/ingest-1m.md).
var smallWriteWait = time.Second

// updateSmall is update for a write of a few records: it keeps the pins
// while the memory map has smallWriteRoom to spare past the file's data,
// and evicts them otherwise, or once the write, past smallWriteWait, waits
// for a remap.
func (db *DB) updateSmall(fn func(tx *bolt.Tx) error) error { return db.updateSized(0, fn) }

// updateSized is updateSmall for a write of about size bytes: the map must
// have room for twice that besides smallWriteRoom (bbolt copies every page
// it changes, and pages freed while a pin is held are not reused).
func (db *DB) updateSized(size int64, fn func(tx *bolt.Tx) error) error {
	if db.readOnly {
		return ErrReadOnly
	}
	db.gateWrite()
	defer db.gate.RUnlock()
	return db.guard(func() error {
		if !db.mapHasRoom(2 * size) {
			db.evictPins(false)
			return db.boltUpdate(fn)
		}
		stop := db.backstop(smallWriteWait)
		defer stop()
		return db.boltUpdate(fn)
	})
}

// UpdateSized is Update for a write of about size bytes (an index save
// that writes records, not a whole segment): while bbolt's memory map has
// room for it, the pins (Pin) are kept, as for a small write. A caller
// whose write may be large passes its size, or uses Update, which evicts
// them first; a write that grows past the map anyway evicts them after
// smallWriteWait.
func (db *DB) UpdateSized(size int64, fn func(tx *Tx) error) error {
	return db.updateSized(size, func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// mapHasRoom reports whether bbolt's memory map extends smallWriteRoom and
// extra bytes past the file's data (false where the map's size cannot be
// read).
func (db *DB) mapHasRoom(extra int64) bool {
	db.pinMu.Lock()
	pinned := len(db.pins) > 0
	db.pinMu.Unlock()
	if !pinned {
		return false // nothing to keep
	}
	var size int64
	if err := db.bolt.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil }); err != nil {
		return false
	}
	mapped, ok := mappedLen(db.bolt.Info().Data)
	return ok && size+smallWriteRoom+extra <= mapped
}

// backstop evicts the pins, after wait and then every quarter of it until
// stop is called, once bbolt is remapping the file (remapping): a remap
// waits for every read, the pins' included, to end. stop does not wait
// for an evict under way.
func (db *DB) backstop(wait time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(wait)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if remapping() {
				db.evictPins(false)
				return
			}
			t.Reset(wait / 4)
		}
	}()
	return func() { close(done) }
}

// remapping reports whether a goroutine is in bbolt's remap of a file
// (DB.mmap), from the stacks of all goroutines: bbolt shows no other sign
// of a write waiting for the reads to end. Another DB's remap counts too,
// which only evicts pins as every write once did.
func remapping() bool {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Contains(buf[:n], bboltRemap)
		}
		buf = make([]byte, 2*len(buf))
	}
}

// bboltRemap is how bbolt's remap appears in a goroutine's stack.
var bboltRemap = []byte("go.etcd.io/bbolt.(*DB).mmap(")
