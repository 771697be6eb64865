package store

import (
	"os"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// ReleaseMapped drops this process's mappings of the file's pages, as far
// as the system allows (Linux; elsewhere it does nothing). bbolt reads the
// file through a read-only shared memory map, and every page a read touched
// stays mapped and counts in the process's resident set: opening a large
// library (the indexes read back, the passages' keys walked) leaves most
// of the file resident. The pages stay in the kernel's page cache, so
// nothing is lost and a later read maps them again without I/O; only the
// process's resident set shrinks. The pages under the values pins keep
// (Pin.Keep) stay mapped: their holder reads them all the time. It runs
// inside a read transaction, which keeps bbolt from remapping the file
// meanwhile. It is safe for concurrent use, with reads and writes in
// flight; it returns ErrCorrupt for a damaged file and the system's error,
// wrapped, when it refuses.
func (db *DB) ReleaseMapped() error {
	return db.view(func(tx *bolt.Tx) error {
		for _, g := range gaps(db.bolt.Info().Data, uintptr(tx.Size()), db.keptRanges(), uintptr(os.Getpagesize())) {
			if err := releaseMapped(g[0], g[1]-g[0]); err != nil {
				return err
			}
		}
		return nil
	})
}

// gaps returns the page-aligned ranges [start, end) of the n bytes mapped
// at base (page-aligned) that hold no byte of the sorted ranges kept.
func gaps(base, n uintptr, kept [][2]uintptr, page uintptr) [][2]uintptr {
	var gs [][2]uintptr
	from, end := base, base+n
	for _, k := range kept {
		lo, hi := k[0]&^(page-1), (k[1]+page-1)&^(page-1)
		if hi <= from || lo >= end {
			continue
		}
		if lo > from {
			gs = append(gs, [2]uintptr{from, lo})
		}
		from = max(from, hi)
	}
	if from < end {
		gs = append(gs, [2]uintptr{from, end})
	}
	return gs
}

// addrOf is the address of b's first byte.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
