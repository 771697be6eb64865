package store_test

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// TestReadAheadLoadsPages: with a value's file pages out of the page cache,
// Bucket.ReadAhead brings them in without the value being read (mincore
// over bbolt's memory map), and the value reads back unchanged.
func TestReadAheadLoadsPages(t *testing.T) {
	db := storetest.MustOpen(t, nil)
	const size = 8 << 20
	want := bytes.Repeat([]byte("read ahead "), size/11)
	err := db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux("readahead")
		if err != nil {
			return err
		}
		return b.Put([]byte("big"), want)
	})
	if err != nil {
		t.Fatal(err)
	}
	store.Evict(t, db.Path())
	err = db.View(func(tx *store.Tx) error {
		b, err := tx.Aux("readahead")
		if err != nil {
			return err
		}
		v := b.Get([]byte("big"))
		if before := store.Resident(t, v); before > 0.5 {
			t.Skipf("%.0f%% of the value's pages stayed in the page cache after eviction (a file system that keeps them): nothing to measure", before*100)
		}
		b.ReadAhead(v)
		var after float64
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if after = store.Resident(t, v); after > 0.99 {
				break
			}
		}
		if after < 0.99 {
			t.Errorf("%.0f%% of the value's pages in the page cache 5 s after ReadAhead, want all", after*100)
		}
		if !bytes.Equal(v, want) {
			t.Error("the value read back differs")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var empty store.Bucket
	empty.ReadAhead(nil) // a hint on nothing does nothing
}

// TestForEachReadsAhead: a walk over a bucket whose pages lie in file order,
// with the file out of the page cache, has the kernel read the pages ahead
// of it: pages half a megabyte past the value being read are in the page cache
// before the walk reaches them (mincore), where bbolt's random-access map
// alone faults pages in one at a time; pages beyond the hinted window are
// not read.
func TestForEachReadsAhead(t *testing.T) {
	db := storetest.MustOpen(t, nil)
	const n, size = 10000, 1000 // ~10 MB of values, written in key order
	val := bytes.Repeat([]byte("walk ahead"), size/10)
	err := db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux("walk")
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put(binary.BigEndian.AppendUint32(nil, uint32(i)), val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	store.Evict(t, db.Path())
	seen := 0
	err = db.View(func(tx *store.Tx) error {
		b, err := tx.Aux("walk")
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			if seen++; seen != 100 {
				return nil
			}
			// A slice of the map past v, for mincore only (never read).
			past := unsafe.Slice(unsafe.SliceData(v), 8<<20)
			if far := store.Resident(t, past[6<<20:7<<20]); far > 0.5 {
				t.Skipf("%.0f%% of the pages 6 MB ahead are in the page cache already (a file system that keeps them): nothing to measure", far*100)
			}
			var near float64
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if near = store.Resident(t, past[512<<10:1536<<10]); near > 0.99 {
					break
				}
			}
			if near < 0.99 {
				t.Errorf("%.0f%% of the pages 0.5-1.5 MB ahead of the walk in the page cache after 5 s, want all", near*100)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Errorf("walked %d values, want %d", seen, n)
	}
}
