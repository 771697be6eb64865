package store_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// authPut stores value as auth record kind "k", key "a".
func authPut(db *store.DB, value []byte) func() error {
	return func() error {
		return db.AuthUpdate(func(tx *store.AuthTx) error { return tx.Put("k", "a", value) })
	}
}

// TestSmallWriteKeepsPin: a sign-in's write (and a setting's) keeps the
// pin when the memory map has room for it, so an index keeps reading in
// place; the records are committed, and the next ordinary write evicts.
func TestSmallWriteKeepsPin(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 64 << 20})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	within(t, 30*time.Second, "a sign-in write while pinned", authPut(db, []byte("token")))
	if err := db.PutSetting("s", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got := p.seen(); got != "[]" {
		t.Fatalf("small writes evicted the pin: %s", got)
	}
	if len(p.v) != 64<<10 || p.v[100] != 1 || p.v[len(p.v)-1] != 1 {
		t.Fatalf("the pinned value after small writes: %d bytes", len(p.v))
	}
	var got []byte
	if err := db.AuthView(func(tx *store.AuthTx) error { got = tx.Get("k", "a"); return nil }); err != nil || string(got) != "token" {
		t.Fatalf("auth record %q, %v", got, err)
	}
	putAux(t, db, 2, 10)
	if got, want := p.seen(), "[evict(closing false)]"; got != want {
		t.Errorf("after an ordinary write: events %s, want %s", got, want)
	}
}

// TestSmallWriteWithoutRoomEvicts: without the room in the map, a small
// write evicts the pin first, as any write does.
func TestSmallWriteWithoutRoomEvicts(t *testing.T) {
	defer store.SetSmallWrites(1<<50, time.Minute)()
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 64 << 20})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	within(t, 30*time.Second, "a sign-in write while pinned", authPut(db, []byte("token")))
	if got, want := p.seen(), "[evict(closing false)]"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestSmallWriteThatRemapsEvicts: a "small" write that grows the file past
// the map (the room check told to pass) waits for the pinned read, and
// the backstop evicts the pin, so the write completes instead of waiting
// forever; the pinned value was copied first.
func TestSmallWriteThatRemapsEvicts(t *testing.T) {
	defer store.SetSmallWrites(0, 200*time.Millisecond)()
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 1 << 20})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	big := bytes.Repeat([]byte{7}, 8<<20) // past the 1 MiB of room at open
	within(t, 60*time.Second, "an 8 MiB sign-in write while pinned", authPut(db, big))
	if got, want := p.seen(), "[evict(closing false)]"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if len(p.v) != 64<<10 || p.v[100] != 1 {
		t.Errorf("the evicted copy: %d bytes", len(p.v))
	}
}

// TestSlowSmallWriteKeepsPin: a write that kept the pins and runs past
// the backstop's wait without growing past the map (a slow sync, a busy
// CPU: here it sleeps) keeps them; the backstop evicts only a write that
// waits for a remap (TestSmallWriteThatRemapsEvicts).
func TestSlowSmallWriteKeepsPin(t *testing.T) {
	defer store.SetSmallWrites(1<<20, 50*time.Millisecond)()
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 64 << 20})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	within(t, 30*time.Second, "a slow small write while pinned", func() error {
		return db.UpdateSized(1<<10, func(tx *store.Tx) error {
			time.Sleep(400 * time.Millisecond) // eight times the backstop's wait
			b, err := tx.Aux("slow")
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		})
	})
	if got := p.seen(); got != "[]" {
		t.Fatalf("a slow small write evicted the pin: %s", got)
	}
}
