package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// scatteredBucket is writeScattered's file opened read-only.
func scatteredBucket(t *testing.T, n int) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(writeScattered(t, n), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// writeScattered writes n records of about 300 bytes under random keys in
// many small transactions, so that the bucket's leaves are split and
// scattered over the file as a real library's document records are, and
// returns the closed bbolt file's path.
func writeScattered(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "leaves.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 300)
	for done := 0; done < n; {
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("docs"))
			if err != nil {
				return err
			}
			other, err := tx.CreateBucketIfNotExists([]byte("other"))
			if err != nil {
				return err
			}
			for range min(500, n-done) {
				for i := range val {
					val[i] = byte('a' + r.IntN(26))
				}
				if err := b.Put(fmt.Appendf(nil, "%016x", r.Uint64()), val); err != nil {
					return err
				}
				// Pages of another bucket in between, as the passages are.
				if err := other.Put(fmt.Appendf(nil, "%016x", r.Uint64()), val); err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// walkedLeaves returns the pages a cursor walk over bucket b reads its
// values from, in the order it reads them (each page once per run).
func walkedLeaves(tx *bolt.Tx, b *bolt.Bucket) []uint64 {
	base, psz := tx.DB().Info().Data, uintptr(tx.DB().Info().PageSize)
	var pages []uint64
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		p := uint64((addrOf(v) - base) / psz)
		if len(pages) == 0 || pages[len(pages)-1] != p {
			pages = append(pages, p)
		}
	}
	return pages
}

// TestLeafPageIDsMatchTheWalk: the leaves read from a three-level tree's
// branch pages are exactly the pages a cursor walk reads, in its order, and
// they are scattered (so a sequential read-ahead would not find them).
func TestLeafPageIDsMatchTheWalk(t *testing.T) {
	db := scatteredBucket(t, 20000)
	err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("docs"))
		k, _ := b.Cursor().First()
		file := mappedFile(tx, k)
		if file == nil {
			t.Fatal("no map found from the bucket's first key")
		}
		got := leafPageIDs(file, tx.DB().Info().PageSize, uint64(b.Root()))
		want := walkedLeaves(tx, b)
		if !slices.Equal(got, want) {
			t.Fatalf("%d leaves from the branch pages, %d walked; first %v against %v", len(got), len(want), got[:min(8, len(got))], want[:min(8, len(want))])
		}
		jumps := 0
		for i := 1; i < len(got); i++ {
			if got[i] != got[i-1]+1 {
				jumps++
			}
		}
		if len(got) < 500 || jumps < len(got)/4 {
			t.Fatalf("%d leaves, %d out of file order: the fixture is not a scattered multi-level tree", len(got), jumps)
		}
		if leafPageIDs(file, tx.DB().Info().PageSize, want[0]) != nil {
			t.Fatal("a leaf as root gave leaves")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLeafPageIDsOnDamage: branch pages that point out of the file, at
// themselves or at garbage, and files of random bytes, end the read without
// a panic, and every leaf returned is a page of the file.
func TestLeafPageIDsOnDamage(t *testing.T) {
	const psz = 4096
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		file := make([]byte, psz*(3+r.IntN(20)))
		for i := range file {
			file[i] = byte(r.Uint32())
		}
		pages := uint64(len(file) / psz)
		// Half the pages are leaves, half branch pages whose children point
		// anywhere: at leaves, at branches, at themselves, past the end.
		for p := uint64(2); p < pages; p++ {
			if r.IntN(2) == 0 {
				file[p*psz+8], file[p*psz+9] = leafPageFlag, 0 // a leaf
				continue
			}
			at := p * psz
			file[at+8], file[at+9] = branchPageFlag, 0
			count := r.IntN(300)
			file[at+10], file[at+11] = byte(count), byte(count>>8)
			file[at+12], file[at+13], file[at+14], file[at+15] = 0, 0, 0, 0
			if round%3 == 0 {
				file[at+12] = byte(r.IntN(4)) // overflow, maybe past the end
			}
			for i := range min(count, (psz-pageHeaderSize)/branchElementSize) {
				child := uint64(r.IntN(int(pages) + 3))
				e := at + pageHeaderSize + uint64(i)*branchElementSize + 8
				for b := range 8 {
					file[e+uint64(b)] = byte(child >> (8 * b))
				}
			}
		}
		for root := range pages + 2 {
			got := leafPageIDs(file, psz, root)
			if uint64(len(got)) > pages {
				t.Fatalf("round %d root %d: %d leaves from %d pages", round, root, len(got), pages)
			}
			for _, id := range got {
				if id < 2 || id >= pages {
					t.Fatalf("round %d root %d: leaf %d outside the file's %d pages (or a meta page)", round, root, id, pages)
				}
			}
		}
		if leafPageIDs(file[:len(file)-1], psz, 2) == nil && leafPageIDs(nil, psz, 2) != nil {
			t.Fatal("leaves from an empty file")
		}
	}
}

// TestHintLeavesAsksForEveryLeaf: the hints cover every leaf of a scattered
// bucket, in the walk's order, consecutive leaves in one request; a bucket
// of one leaf gets none.
func TestHintLeavesAsksForEveryLeaf(t *testing.T) {
	var mu sync.Mutex
	var hints [][2]uintptr
	defer func(h func(lo, hi uintptr)) { hintAhead = h }(hintAhead)
	hintAhead = func(lo, hi uintptr) {
		mu.Lock()
		hints = append(hints, [2]uintptr{lo, hi})
		mu.Unlock()
	}
	db := scatteredBucket(t, 5000)
	err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("docs"))
		walked := walkedLeaves(tx, b)
		stop := hintLeaves(tx, b)
		base, psz := tx.DB().Info().Data, uintptr(tx.DB().Info().PageSize)
		covered := func() (n uintptr) {
			mu.Lock()
			defer mu.Unlock()
			for _, h := range hints {
				n += (h[1] - h[0]) / psz
			}
			return n
		}
		for deadline := time.Now().Add(10 * time.Second); covered() < uintptr(len(walked)) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		stop()
		var hinted []uint64
		for _, h := range hints {
			if (h[0]-base)%psz != 0 || (h[1]-h[0])%psz != 0 || h[1] <= h[0] {
				t.Fatalf("hint %#x-%#x is not whole pages of the map", h[0], h[1])
			}
			for p := (h[0] - base) / psz; p < (h[1]-base)/psz; p++ {
				hinted = append(hinted, uint64(p))
			}
		}
		if !slices.Equal(hinted, walked) {
			t.Fatalf("%d pages hinted in %d requests, %d walked", len(hinted), len(hints), len(walked))
		}
		hints = nil
		hintLeaves(tx, tx.Bucket([]byte("absent")))()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hints) != 0 {
		t.Fatalf("hints for a missing bucket: %v", hints)
	}
}
