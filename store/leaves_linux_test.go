package store

import (
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestHintLeavesReadsThemIn: with the file out of the page cache, the
// kernel reads a scattered bucket's leaves in on hintLeaves's hints alone,
// before any walk touches them (mincore over bbolt's map).
func TestHintLeavesReadsThemIn(t *testing.T) {
	// Closed, so that no page stays mapped (a mapped page is not evicted),
	// then written out and dropped from the page cache.
	path := writeScattered(t, 20000)
	Evict(t, path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("docs"))
		k, _ := b.Cursor().First()
		file := mappedFile(tx, k)
		psz := tx.DB().Info().PageSize
		leaves := leafPageIDs(file, psz, uint64(b.Root()))
		inCache := func() float64 {
			n := 0.0
			for _, p := range leaves {
				n += Resident(t, file[int(p)*psz:int(p+1)*psz])
			}
			return n / float64(len(leaves))
		}
		if before := inCache(); before > 0.5 {
			t.Skipf("%.0f%% of the leaves stayed in the page cache after eviction: nothing to measure", before*100)
		}
		stop := hintLeaves(tx, b)
		defer stop()
		var after float64
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if after = inCache(); after > 0.95 {
				return nil
			}
		}
		t.Errorf("%.0f%% of %d leaves in the page cache 10 s after the hints, want nearly all", after*100, len(leaves))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
