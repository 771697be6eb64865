package store

import (
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// bbolt writes its freelist, eight bytes per free page, at every commit:
// a library whose file holds many free pages (the BM25 segments an ingest
// rewrites free theirs) rewrote megabytes of freelist for every document
// it stored, most of an ingest's writes (docs/benchmarks/ingest-writes.md).
// With the freelist left unwritten (bbolt's NoFreelistSync) a commit marks
// the file as having none, and the next open that needs it rebuilds it by
// walking every page of the file: cheap to skip during a long write, too
// slow to rebuild at every open of a large library. So it is skipped only
// between DeferFreelist and its end, and written by one commit at the end
// (or at Close): a write session that ends cleanly leaves the file as it
// would have been. A process killed in between leaves a file without one,
// as consistent as ever (every commit is whole); its next writable open
// rebuilds the freelist by that walk, once, and writes it.

// freelist is a DB's state of deferred freelist writes.
type freelist struct {
	mu       sync.Mutex // held across every write transaction (boltUpdate)
	deferred int        // DeferFreelist calls not yet ended
	closing  bool       // Close has begun: commits write the freelist
	unsynced bool       // the last commit left the freelist unwritten
}

// skip reports whether a commit beginning now leaves the freelist
// unwritten; f.mu must be held.
func (f *freelist) skip() bool { return f.deferred > 0 && !f.closing }

// DeferFreelist makes the commits that follow leave bbolt's freelist
// unwritten until the returned end is called (calls nest: the last end
// counts). end writes it, in a commit of its own when the last commit
// left it unwritten, and returns that commit's errors (ErrReadOnly on a
// read-only handle); it is idempotent. Close writes it too. A write
// session of many commits (an ingest) uses it. It is safe for concurrent
// use.
func (db *DB) DeferFreelist() (end func() error) {
	if db.readOnly {
		return func() error { return nil }
	}
	f := &db.freelist
	f.mu.Lock()
	f.deferred++
	f.mu.Unlock()
	var once sync.Once
	return func() (err error) {
		once.Do(func() {
			f.mu.Lock()
			f.deferred--
			f.mu.Unlock()
			err = db.syncFreelist()
		})
		return err
	}
}

// syncFreelist commits an empty transaction, which writes the freelist,
// when the last commit left it unwritten and no DeferFreelist is in
// effect (or Close has begun).
func (db *DB) syncFreelist() error {
	f := &db.freelist
	f.mu.Lock()
	need := f.unsynced && !f.skip() && !db.readOnly
	f.mu.Unlock()
	if !need {
		return nil
	}
	if err := db.updateSmall(func(*bolt.Tx) error { return nil }); err != nil {
		return fmt.Errorf("write the freelist: %w", err)
	}
	return nil
}
