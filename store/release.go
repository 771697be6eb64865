package store

import bolt "go.etcd.io/bbolt"

// ReleaseMapped drops this process's mappings of the file's pages, as far
// as the system allows (Linux; elsewhere it does nothing). bbolt reads the
// file through a read-only shared memory map, and every page a read touched
// stays mapped and counts in the process's resident set: opening a large
// library (the indexes read back, the passages' keys walked) leaves most
// of the file resident. The pages stay in the kernel's page cache, so
// nothing is lost and a later read maps them again without I/O; only the
// process's resident set shrinks. It runs inside a read transaction, which
// keeps bbolt from remapping the file meanwhile. It is safe for concurrent
// use, with reads and writes in flight; it returns ErrCorrupt for a damaged
// file and the system's error, wrapped, when it refuses.
func (db *DB) ReleaseMapped() error {
	return db.view(func(tx *bolt.Tx) error {
		return releaseMapped(db.bolt.Info().Data, uintptr(tx.Size()))
	})
}
