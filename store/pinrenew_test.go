package store_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// dataSize returns the bytes of db's pages in use or free (bbolt's high
// water mark, Stats.FileBytes).
func dataSize(t *testing.T, db *store.DB) int64 {
	t.Helper()
	s, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return s.FileBytes
}

// smallWrites runs n writes of a new 100-byte setting each (they keep the
// pin), renewing p's pin every 10th when renew is set. Each write copies
// the leaf the last one wrote, a page bbolt took past the end of the data
// when it had none free.
func smallWrites(t *testing.T, db *store.DB, p *pinned, from, n int, renew func(*store.Tx) bool) {
	t.Helper()
	for i := range n {
		if err := db.PutSetting(fmt.Sprintf("s%06d", from+i), bytes.Repeat([]byte{byte(i)}, 100)); err != nil {
			t.Fatal(err)
		}
		if renew != nil && i%10 == 9 {
			if err := p.pin.Renew(renew); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPinRenewLetsWritesReusePages: a pin held over many small writes
// keeps bbolt from reusing the pages they free, so the file's data grows
// with every write (and bbolt rewrites the list of those pages at every
// commit); renewed while its value is live, it does not hold them, and
// its value stays readable where it was. Renew does nothing when live
// reports false or the pin was evicted.
func TestPinRenewLetsWritesReusePages(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 64 << 20})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	smallWrites(t, db, p, 0, 20, func(*store.Tx) bool { return true }) // the settings bucket's pages exist
	start := dataSize(t, db)
	smallWrites(t, db, p, 20, 400, func(*store.Tx) bool { return true })
	if grown := dataSize(t, db) - start; grown > 200<<10 {
		t.Errorf("file grew by %d bytes over 400 small writes with the pin renewed", grown)
	}
	if got := p.seen(); got != "[]" {
		t.Fatalf("the writes evicted the pin: %s", got)
	}
	if want := bytes.Repeat([]byte{1}, 64<<10); !bytes.Equal(p.v, want) {
		t.Fatal("the pinned value changed after renewals")
	}
	start = dataSize(t, db)
	smallWrites(t, db, p, 420, 400, func(*store.Tx) bool { return false })
	if grown := dataSize(t, db) - start; grown < 400*4<<10 {
		t.Errorf("file grew by %d bytes over 400 small writes with the pin held, want at least a page a write", grown)
	}
	putAux(t, db, 2, 10) // evicts
	if err := p.pin.Renew(func(*store.Tx) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if got, want := p.seen(), "[evict(closing false)]"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestPinRenewSeesMovedValue: a write to a key that shares a leaf page
// with a pinned value moves that value (bbolt writes the whole leaf
// anew), although its key and bytes are unchanged; a live function that
// compares addresses in the new transaction then refuses the renewal, and
// the pinned value stays readable where it was over the writes that
// follow, which would otherwise reuse its old page.
func TestPinRenewSeesMovedValue(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 64 << 20})
	defer db.Close()
	putAux(t, db, 2, 16<<10)
	p := pinValue(t, db, 0)
	sameAddress := func(now *store.Tx) bool {
		b, err := now.Aux("pin")
		if err != nil {
			t.Fatal(err)
		}
		v := b.Get([]byte("v0"))
		return len(v) == len(p.v) && &v[0] == &p.v[0]
	}
	moved := true
	if err := p.pin.Renew(func(now *store.Tx) bool { moved = !sameAddress(now); return false }); err != nil {
		t.Fatal(err)
	}
	if moved {
		t.Fatal("the value moved before any write")
	}
	err := db.UpdateSized(16<<10, func(tx *store.Tx) error { // a neighbour on v0's leaf
		b, err := tx.Aux("pin")
		if err != nil {
			return err
		}
		return b.Put([]byte("v0a"), []byte("small"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.pin.Renew(func(now *store.Tx) bool { moved = !sameAddress(now); return !moved }); err != nil {
		t.Fatal(err)
	}
	if !moved {
		t.Fatal("writing a neighbour key did not move the value: bbolt's leaf pages work otherwise than this store assumes")
	}
	for i := range 50 { // values the size of v0's leaf, which reuse freed pages
		err := db.UpdateSized(16<<10, func(tx *store.Tx) error {
			b, err := tx.Aux("other")
			if err != nil {
				return err
			}
			return b.Put(fmt.Appendf(nil, "o%d", i%5), bytes.Repeat([]byte{0xee}, 16<<10))
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.pin.Renew(sameAddress); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.seen(); got != "[]" {
		t.Fatalf("the writes evicted the pin: %s", got)
	}
	if want := bytes.Repeat([]byte{1}, 16<<10); !bytes.Equal(p.v, want) {
		t.Fatal("the pinned value changed: its old page was reused")
	}
}

// TestPinRenewLivePanics: a live function that panics (a fault reading a
// damaged file) leaves the pin as it was and no read transaction behind:
// a write that must remap the file still goes through once the pin is
// evicted.
func TestPinRenewLivePanics(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true})
	defer db.Close()
	putAux(t, db, 1, 1<<10)
	p := pinValue(t, db, 0)
	if err := p.pin.Renew(func(*store.Tx) bool { panic("fault") }); err == nil {
		t.Fatal("Renew with a panicking live function returned no error")
	}
	if want := bytes.Repeat([]byte{1}, 1<<10); !bytes.Equal(p.v, want) {
		t.Fatal("the pinned value changed")
	}
	within(t, time.Minute, "a large write after the panic", func() error {
		return db.Update(func(tx *store.Tx) error { // evicts the pin, then grows the file past its map
			b, err := tx.Aux("big")
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), make([]byte, 8<<20))
		})
	})
}
