package main

import (
	"io/fs"
	"path/filepath"
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
	// roomWalkLimit bounds the entries looked at to find the largest file.
	roomWalkLimit = 100000
)

// writeRoom returns store.Options.MapRoom for ingesting paths: roomPerByte
// times the largest regular file among them (at most maxBytes, the size
// limit), or 0 to keep the store's default when no file reaches roomFloor.
// Unreadable entries are skipped: ingest reports them.
func writeRoom(paths []string, maxBytes int64) int64 {
	var largest int64
	seen := 0
	for _, p := range paths {
		filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if seen++; seen > roomWalkLimit {
				return filepath.SkipAll
			}
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if fi, err := d.Info(); err == nil {
				largest = max(largest, min(fi.Size(), maxBytes))
			}
			return nil
		})
	}
	if largest < roomFloor {
		return 0
	}
	return roomPerByte * largest
}
