package store

import (
	"log/slog"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// WriteVolume is what a DB's committed write transactions asked bbolt to
// write to the file since Open: the measure of an ingest's write
// amplification beside the file's size (docs/benchmarks/ingest-writes.md).
// A commit writes every page it changed or allocated (the B+tree pages from
// each changed leaf up to its bucket's root, the values' overflow pages),
// a fresh copy of the freelist unless it is not synced, and one meta page.
type WriteVolume struct {
	// Commits counts the committed write transactions.
	Commits uint64
	// PageBytes is the pages the commits allocated and wrote, the
	// freelist's copies included.
	PageBytes int64
	// FreelistBytes is the part of PageBytes that held the freelist.
	FreelistBytes int64
	// MetaBytes is the meta pages written, one per commit.
	MetaBytes int64
	// LargestFreelist is the largest freelist a commit wrote, in bytes.
	LargestFreelist int64
}

// Bytes is everything the commits wrote: PageBytes and MetaBytes.
func (v WriteVolume) Bytes() int64 { return v.PageBytes + v.MetaBytes }

// volume sums WriteVolume; its zero value is ready. It is safe for
// concurrent use.
type volume struct {
	mu sync.Mutex
	v  WriteVolume
}

// add counts tx, which has just committed to bdb (from its OnCommit
// handler): its own page allocations, and the freelist bbolt wrote with it,
// estimated as bbolt sizes its allocation (a header and eight bytes a free
// or pending page, plus one page) from the freelist as the commit left it.
// page is the file's page size, read by the caller while tx was open (the
// handler runs after bbolt's locks are released, so it must not read
// bdb.Info: another commit may be remapping the file).
func (v *volume) add(tx *bolt.Tx, bdb *bolt.DB, page int64) {
	st := tx.Stats()
	bs := bdb.Stats()
	var freelist int64
	if !bdb.NoFreelistSync { // set at Open only
		freelist = (int64(bs.FreelistInuse)/page + 1) * page
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.v.Commits++
	v.v.PageBytes += st.GetPageAlloc()
	v.v.FreelistBytes += freelist
	v.v.MetaBytes += page
	v.v.LargestFreelist = max(v.v.LargestFreelist, freelist)
	if st.GetPageAlloc() >= 1<<20 || v.v.Commits%1000 == 0 {
		slog.Debug("store commit", "commit", v.v.Commits, "page_bytes", st.GetPageAlloc(), "freelist_bytes", freelist,
			"free_pages", bs.FreePageN, "pending_pages", bs.PendingPageN,
			"total_page_bytes", v.v.PageBytes, "total_freelist_bytes", v.v.FreelistBytes)
	}
}

// WriteVolume returns what the DB's commits wrote since Open. It is safe
// for concurrent use.
func (db *DB) WriteVolume() WriteVolume {
	db.volume.mu.Lock()
	defer db.volume.mu.Unlock()
	return db.volume.v
}
