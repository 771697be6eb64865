package main

import (
	"io/fs"
	"math/bits"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// A document is written in one bbolt transaction, and bbolt copies every
// page that transaction dirtied into the heap each time it has to remap the
// file to grow it (node.dereference): a 24 MiB text file remapped a dozen
// times and held two copies of its records at once. Mapping the library
// with room for the largest file's records up front (address space, not
// memory) spares those copies: the peak heap of that ingest fell from 418
// to 263 MB.
const (
	// roomPerByte is the map room reserved per byte of the largest file:
	// its original, its text, its passages and their index entries.
	roomPerByte = 8
	// roomFloor is the file size under which the store's own room is kept
	// (bbolt's remaps of a small write copy little, and a larger map would
	// make bbolt grow a small library in 16 MiB steps).
	roomFloor = 16 << 20
)

// writeRoom returns store.Options.MapRoom for ingesting a largest file of
// largest bytes: roomPerByte times it, or 0 to keep the store's default
// under roomFloor.
func writeRoom(largest int64) int64 {
	if largest < roomFloor {
		return 0
	}
	return roomPerByte * largest
}

// An ingest also maps room for the library it builds: the BM25 index
// reads each segment it writes in place (library/embedded adopt.go) and
// writes the next one from those bytes, which it can do only while no
// write makes bbolt remap the file (a remap waits for the pin that holds
// them). corpusRoomPerByte times the corpus's bytes covers the library
// an ingest of it grows (896 MB from 197 MB at 100k synthetic passages)
// and a segment written beside the one read. It is address space, not
// memory; not on Windows, where bbolt grows the file to its map, nor on
// 32-bit systems.
const (
	corpusRoomPerByte = 8
	corpusWalkLimit   = 2000000 // entries looked at to size the corpus
)

// ingestRoom returns store.Options.MapRoom for an ingest of a corpus of
// total bytes whose largest file has largest bytes: writeRoom's, or the
// corpus's room when that is larger (see corpusRoomPerByte).
func ingestRoom(largest, total int64) int64 {
	room := writeRoom(largest)
	if runtime.GOOS == "windows" || bits.UintSize < 64 {
		return room
	}
	return max(room, corpusRoomPerByte*total)
}

// corpusSize returns the bytes of the regular files among paths and the
// size of the largest (folders walked once, at most corpusWalkLimit
// entries), each capped at maxBytes, the size limit. Unreadable entries
// are skipped: ingest reports them.
func corpusSize(paths []string, maxBytes int64) (total, largest int64) {
	seen := 0
	for _, p := range paths {
		filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if seen++; seen > corpusWalkLimit {
				return filepath.SkipAll
			}
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if fi, err := d.Info(); err == nil {
				size := min(fi.Size(), maxBytes)
				total += size
				largest = max(largest, size)
			}
			return nil
		})
	}
	return total, largest
}

// A document's write holds its records twice at the commit (as records and
// as bbolt's page buffers), and Go's collector lets the heap grow to twice
// what was live at the last collection: a 148 MiB text file peaked at
// 2.7 GB of RSS, 1.4 GB with GOMEMLIMIT=1GiB, in the same time. So an
// ingest of large files sets a soft memory limit of limitPerByte times the
// largest, about what is live at that commit, unless GOMEMLIMIT is set:
// the collector works harder near the limit instead of doubling the heap.
// It is soft: the runtime exceeds it rather than fail.
const limitPerByte = 8

// limitMemory sets the soft memory limit for an ingest whose largest file
// has largest bytes, when that is at least roomFloor and goMemLimit (the
// GOMEMLIMIT variable) is empty, and returns a function restoring the
// previous limit. It only ever lowers the limit.
func limitMemory(largest int64, goMemLimit string) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if largest < roomFloor || goMemLimit != "" || limitPerByte*largest >= prev {
		return func() {}
	}
	debug.SetMemoryLimit(limitPerByte * largest)
	return func() { debug.SetMemoryLimit(prev) }
}

// ingestGCPercent is the collector's target during an ingest: the heap may
// grow by a quarter of what was live at the last collection before the
// next, instead of doubling (GOGC 100). An ingest's live heap grows with the
// library (the BM25 index and the graph being built), and its peak
// anonymous memory was about twice that: at 100k passages 366 MiB, 261 MiB
// at 25, for 194 instead of 191 CPU-seconds
// (docs/benchmarks/ingest-memory.md#ingest-peak).
const ingestGCPercent = 25

// lowerGC sets the collector's target to ingestGCPercent unless goGC (the
// GOGC variable) is set, and returns a function restoring the previous
// one.
func lowerGC(goGC string) (restore func()) {
	if goGC != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(ingestGCPercent)
	return func() { debug.SetGCPercent(prev) }
}
