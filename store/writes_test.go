package store_test

import (
	"testing"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// TestOpenOfCurrentLibraryWritesNothing: opening a library that is of the
// current schema with every bucket begins no write transaction, so the file
// keeps its bytes and bbolt's transaction id; a file that needs its
// buckets or an upgrade is still written, once.
func TestOpenOfCurrentLibraryWritesNothing(t *testing.T) {
	db, path := openNew(t, nil)
	if got := db.WriteStats(); got != (store.WriteStats{Begun: 1, Committed: 1}) {
		t.Errorf("creating a library: %+v, want one commit", got)
	}
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	mustPut(t, db, "aaaa", "/a", "one", "two")
	db.Close()
	before := storetest.FileState(t, path)
	reopenWrites(t, path, store.WriteStats{})
	if after := storetest.FileState(t, path); after != before {
		t.Errorf("an open changed the file: %+v, was %+v", after, before)
	}

	alterFile(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("originals")) })
	reopenWrites(t, path, store.WriteStats{Begun: 1, Committed: 1})
	downgrade(t, path)
	reopenWrites(t, path, store.WriteStats{Begun: 1, Committed: 1})
	reopenWrites(t, path, store.WriteStats{})
}

// reopenWrites opens the library at path, checks the write transactions
// the open ran and its invariants, and closes it.
func reopenWrites(t *testing.T, path string, want store.WriteStats) {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.WriteStats(); got != want {
		t.Errorf("open: write transactions %+v, want %+v", got, want)
	}
	if err := db.Check(); err != nil {
		t.Error(err)
	}
}

// TestWriteStatsCountsWrites: every write transaction is counted as begun,
// and as committed only when it commits; Check's, which writes nothing and
// rolls back, is begun only.
func TestWriteStatsCountsWrites(t *testing.T) {
	db := storetest.MustOpen(t, nil)
	base := db.WriteStats()
	if err := db.PutSetting("k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	want := store.WriteStats{Begun: base.Begun + 2, Committed: base.Committed + 1}
	if got := db.WriteStats(); got != want {
		t.Errorf("after a setting and a check: %+v, want %+v", got, want)
	}
}
