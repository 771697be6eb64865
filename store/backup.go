package store

import (
	"fmt"
	"io"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// A backup copies the file in one read transaction (bbolt's Tx.WriteTo), so
// the copy is the library as one commit left it, while searches and writes
// go on. What that transaction can hold back: bbolt remaps a growing file
// only after every read transaction has ended, and while a writer waits for
// that, every new read transaction (each search) waits behind it, so one
// write needing a remap would stall the searches for the rest of the
// backup. So while a backup runs, a write begins only when the memory map
// has backupWriteRoom to spare past the file's data; otherwise it waits,
// outside bbolt, for the backups to end: the write is delayed, the searches
// are not.

// backupWriteRoom is how much of the memory map must lie past the file's
// data for a write to begin beside a running backup: more than one
// document write of ordinary size (a variable for tests).
var backupWriteRoom int64 = 32 << 20

// backups counts the backups in progress; writes wait on it (see above).
type backups struct {
	mu      sync.Mutex
	running int
	done    chan struct{} // closed when running drops to zero
}

// BackupInfo describes a copy Backup wrote.
type BackupInfo struct {
	// Bytes is the copy's size.
	Bytes int64
	// Totals are the library's counts in the copied commit (zero in a
	// schema-2 file opened read-only, which has none).
	Totals Totals
}

// Backup writes a consistent copy of the library file to w from one read
// transaction, streamed: it holds no more than a page in memory. Writes
// in flight when it begins finish first; writes that begin meanwhile
// proceed unless they might grow the memory map (see backupWriteRoom),
// and then wait until the copy ends. Errors are w's, or ErrCorrupt for a
// damaged file. Safe for concurrent use, also on a read-only DB.
func (db *DB) Backup(w io.Writer) (BackupInfo, error) {
	var info BackupInfo
	db.gate.Lock() // no write in flight while the transaction begins
	var tx *bolt.Tx
	err := db.guard(func() (err error) { tx, err = db.bolt.Begin(false); return err })
	if err == nil {
		db.startBackup()
		defer db.endBackup()
	}
	db.gate.Unlock()
	if err != nil {
		return info, fmt.Errorf("begin backup: %w", err)
	}
	defer tx.Rollback()
	err = db.guard(func() (err error) {
		if info.Totals, _, err = getTotals(tx); err != nil {
			return err
		}
		info.Bytes, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return info, fmt.Errorf("copy %s: %w", db.path, err)
	}
	return info, nil
}

func (db *DB) startBackup() {
	db.backups.mu.Lock()
	defer db.backups.mu.Unlock()
	if db.backups.running == 0 {
		db.backups.done = make(chan struct{})
	}
	db.backups.running++
}

func (db *DB) endBackup() {
	db.backups.mu.Lock()
	defer db.backups.mu.Unlock()
	if db.backups.running--; db.backups.running == 0 {
		close(db.backups.done)
	}
}

// backupWait returns a channel to wait on before a write may begin, or
// nil when it may begin now: no backup runs, or the map has room enough
// that the write will not remap. The caller holds db.gate (read), so no
// backup begins while it writes once this returned nil.
func (db *DB) backupWait() <-chan struct{} {
	db.backups.mu.Lock()
	running, done := db.backups.running, db.backups.done
	db.backups.mu.Unlock()
	if running == 0 || db.mapRoom() >= backupWriteRoom {
		return nil
	}
	return done
}

// MapRoom returns how far bbolt's memory map extends past the file's
// data (0 where the map's size cannot be read): how much a write may add
// before bbolt remaps the file, which waits for every pin (Pin). It is
// safe for concurrent use.
func (db *DB) MapRoom() int64 { return db.mapRoom() }

// mapRoom returns how far bbolt's memory map extends past the file's
// data (0 where the map's size cannot be read).
func (db *DB) mapRoom() int64 {
	var size int64
	if err := db.bolt.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil }); err != nil {
		return 0
	}
	mapped, ok := mappedLen(db.bolt.Info().Data)
	if !ok {
		return 0
	}
	return mapped - size
}

// gateWrite takes db.gate for a write, waiting first for the backups that
// a write might stall (backupWait). The caller releases it with
// db.gate.RUnlock.
func (db *DB) gateWrite() {
	for {
		db.gate.RLock()
		wait := db.backupWait()
		if wait == nil {
			return
		}
		db.gate.RUnlock()
		<-wait
	}
}
