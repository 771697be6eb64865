package store_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpvec/mcpvec/store"
)

// putAux stores n values of size bytes, value i filled with byte i+1,
// under keys "v<i>" in aux bucket "pin".
func putAux(t *testing.T, db *store.DB, n, size int) {
	t.Helper()
	err := db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux("pin")
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put(fmt.Appendf(nil, "v%d", i), bytes.Repeat([]byte{byte(i + 1)}, size)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pinned pins a read of aux value i and records the evictions.
type pinned struct {
	mu     sync.Mutex
	events []string
	v      []byte
	pin    *store.Pin
}

func (p *pinned) note(e string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, e)
}

func (p *pinned) seen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprint(p.events)
}

func pinValue(t *testing.T, db *store.DB, i int) *pinned {
	t.Helper()
	p := &pinned{}
	pin, err := db.Pin(func(tx *store.Tx) error {
		b, err := tx.Aux("pin")
		if err != nil {
			return err
		}
		p.v = b.Get(fmt.Appendf(nil, "v%d", i))
		return nil
	}, func(closing bool) {
		if !closing {
			p.v = bytes.Clone(p.v) // what an index does: copy, then let go
		}
		p.note(fmt.Sprintf("evict(closing %v)", closing))
	})
	if err != nil {
		t.Fatal(err)
	}
	p.pin = pin
	return p
}

// within runs fn and fails the test if it has not returned after d (a
// deadlock between a write and a pinned read).
func within(t *testing.T, d time.Duration, what string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// TestPinEvictedBeforeWrite: a write evicts the pin before it writes, so a
// write that grows the file (bbolt remaps it) does not wait for the pinned
// read forever, and later writes find no pin.
func TestPinEvictedBeforeWrite(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true})
	defer db.Close()
	putAux(t, db, 1, 64<<10)
	p := pinValue(t, db, 0)
	if len(p.v) != 64<<10 || p.v[100] != 1 {
		t.Fatalf("pinned value: %d bytes", len(p.v))
	}
	within(t, 30*time.Second, "a 16 MiB write while pinned", func() error {
		return db.Update(func(tx *store.Tx) error {
			p.note("write")
			b, err := tx.Aux("big")
			if err != nil {
				return err
			}
			for i := range 16 {
				if err := b.Put(fmt.Appendf(nil, "b%d", i), make([]byte, 1<<20)); err != nil {
					return err
				}
			}
			return nil
		})
	})
	putAux(t, db, 2, 10)
	if got, want := p.seen(), "[evict(closing false) write]"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if len(p.v) != 64<<10 || p.v[100] != 1 {
		t.Errorf("the evicted copy: %d bytes", len(p.v))
	}
}

func TestPinEvictedAtClose(t *testing.T) {
	db, _ := openNew(t, nil)
	putAux(t, db, 1, 100)
	p := pinValue(t, db, 0)
	within(t, 10*time.Second, "Close while pinned", db.Close)
	if got, want := p.seen(), "[evict(closing true)]"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestPinReleased(t *testing.T) {
	db, _ := openNew(t, nil)
	putAux(t, db, 1, 100)
	p := pinValue(t, db, 0)
	p.pin.Release()
	p.pin.Release()
	putAux(t, db, 1, 100)
	within(t, 10*time.Second, "Close", db.Close)
	if got := p.seen(); got != "[]" {
		t.Errorf("events after Release: %s, want none", got)
	}
}

// TestPinFailed: a pin whose fn fails or panics holds nothing: Close does
// not wait for it and no evict runs.
func TestPinFailed(t *testing.T) {
	db, _ := openNew(t, nil)
	putAux(t, db, 1, 100)
	boom := errors.New("boom")
	evicted := false
	if _, err := db.Pin(func(*store.Tx) error { return boom }, func(bool) { evicted = true }); !errors.Is(err, boom) {
		t.Errorf("Pin with a failing fn = %v", err)
	}
	if _, err := db.Pin(func(*store.Tx) error { panic("bad page") }, func(bool) { evicted = true }); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Pin with a panicking fn = %v, want ErrCorrupt", err)
	}
	putAux(t, db, 1, 100)
	within(t, 10*time.Second, "Close", db.Close)
	if evicted {
		t.Error("a failed pin was evicted")
	}
}

// TestReleaseMappedKeepsPinned: ReleaseMapped leaves the pages of a kept
// value mapped and unmaps the others (Linux: /proc/self/pagemap's present
// bit).
func TestReleaseMappedKeepsPinned(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ReleaseMapped does nothing here")
	}
	db, _ := openNew(t, nil)
	defer db.Close()
	putAux(t, db, 2, 1<<20)
	kept, other := pinValue(t, db, 0), pinValue(t, db, 1)
	kept.pin.Keep(kept.v)
	sum := 0
	for _, v := range [][]byte{kept.v, other.v} {
		for i := 0; i < len(v); i += 4096 {
			sum += int(v[i])
		}
	}
	if sum != 256*1+256*2 {
		t.Fatalf("read %d", sum)
	}
	if err := db.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	k, kn := presentPages(t, kept.v)
	o, on := presentPages(t, other.v)
	if k != kn || o != 0 || kn < 255 {
		t.Errorf("after ReleaseMapped: %d of %d kept pages mapped, %d of the other's %d", k, kn, o, on)
	}
}

// presentPages counts the whole pages of b mapped in this process, and
// the whole pages of b.
func presentPages(t *testing.T, b []byte) (mapped, pages int) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + 4095) / 4096
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))) / 4096
	n := 0
	var e [8]byte
	for pg := start; pg < end; pg++ {
		if _, err := f.ReadAt(e[:], int64(pg*8)); err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint64(e[:])>>63 == 1 {
			n++
		}
	}
	return n, int(end - start)
}

// TestCloseDuringPin: Close called while a pin's fn runs waits for it and
// then evicts the new pin, instead of waiting for its transaction forever.
func TestCloseDuringPin(t *testing.T) {
	db, _ := openNew(t, nil)
	putAux(t, db, 1, 100)
	inFn, release := make(chan struct{}), make(chan struct{})
	var evicted sync.WaitGroup
	evicted.Add(1)
	go func() {
		_, err := db.Pin(func(*store.Tx) error {
			close(inFn)
			<-release
			return nil
		}, func(closing bool) {
			if closing {
				evicted.Done()
			}
		})
		if err != nil {
			t.Error(err)
		}
	}()
	<-inFn
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	time.Sleep(50 * time.Millisecond) // Close is waiting for the pin under way
	close(release)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after a pin that began before it")
	}
	evicted.Wait()
}

// TestGuardFaults: a pinned value whose pages another process cut off the
// file faults when read; GuardFaults makes that an error matching
// ErrCorrupt, and lets other panics through.
func TestGuardFaults(t *testing.T) {
	db, path := openNew(t, &store.Options{NoSync: true})
	putAux(t, db, 1, 256<<10)
	p := pinValue(t, db, 0)
	sum := func() {
		n := 0
		for _, c := range p.v {
			n += int(c)
		}
		if n != len(p.v) {
			panic(fmt.Sprintf("sum %d of %d bytes", n, len(p.v)))
		}
	}
	if err := db.GuardFaults(sum); err != nil {
		t.Fatalf("reading the intact value: %v", err)
	}
	if err := os.Truncate(path, 4096); err != nil { // what a careless process might do
		t.Fatal(err)
	}
	if err := db.GuardFaults(sum); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("reading past the cut: %v, want ErrCorrupt", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "not a fault" {
				t.Errorf("recovered %v, want the panic passed through", r)
			}
		}()
		_ = db.GuardFaults(func() { panic("not a fault") })
		t.Error("GuardFaults swallowed a panic")
	}()
	p.pin.Release()
	_ = db.Close() // the file is damaged; only the handle matters
}
