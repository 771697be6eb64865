package store

import (
	"cmp"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Pin is a read transaction held open after the call that began it, so
// that the values read through it stay valid: how an index reads the large
// values of a library in place instead of copying them (bbolt's values are
// slices of its read-only memory map of the file, valid while the
// transaction that read them is open). A pin must not outlive a large
// write: bbolt waits for every read transaction before it remaps a growing
// file, and cannot reuse the pages freed after the oldest one began. So
// before each write but the small ones (smallwrite.go), and at Close, the
// store evicts its pins: it calls each one's
// evict function, which must stop using every byte read through the pin
// before it returns, then ends the transaction. A Pin is safe for
// concurrent use.
type Pin struct {
	db    *DB
	tx    *bolt.Tx
	evict func(closing bool)
	keep  [][]byte // guarded by db.pinMu
	once  sync.Once
	ended bool // guarded by db.pinMu; tx too, which Renew replaces
}

// Pin begins a read transaction and runs fn in it. When fn fails the
// transaction ends and fn's error comes back (ErrCorrupt for a damaged
// file). Otherwise the transaction stays open until Release, or until the
// store evicts the pin: evict(false) before the store's next write (a
// small write may keep it: see updateSmall), from the goroutine about to
// write and outside any transaction, or from a small write's backstop
// while that write waits, so it must not write to the store itself;
// evict(true) at Close, when nothing will be read again and nothing need
// be kept. A pin begins after the writes in
// flight, and writes wait for fn.
func (db *DB) Pin(fn func(tx *Tx) error, evict func(closing bool)) (*Pin, error) {
	db.gate.Lock()
	defer db.gate.Unlock()
	var p *Pin
	err := db.guard(func() error {
		tx, err := db.bolt.Begin(false)
		if err != nil {
			return err
		}
		defer func() {
			if p == nil { // fn failed or panicked
				tx.Rollback()
			}
		}()
		if err := fn(&Tx{tx: tx}); err != nil {
			return err
		}
		p = &Pin{db: db, tx: tx, evict: evict}
		return nil
	})
	if err != nil {
		return nil, err
	}
	db.pinMu.Lock()
	defer db.pinMu.Unlock()
	if db.pins == nil {
		db.pins = make(map[*Pin]struct{})
	}
	db.pins[p] = struct{}{}
	return p, nil
}

// Keep tells ReleaseMapped to leave the pages under b (a value read
// through the pin) mapped while the pin lasts: the holder reads them, and
// would otherwise fault them back in after every release.
func (p *Pin) Keep(b []byte) {
	p.db.pinMu.Lock()
	defer p.db.pinMu.Unlock()
	p.keep = append(p.keep, b)
}

// Release ends the pin's transaction; the values read through it must no
// longer be used. Releasing twice, or after an eviction, does nothing.
func (p *Pin) Release() {
	p.db.pinMu.Lock()
	delete(p.db.pins, p)
	p.db.pinMu.Unlock()
	p.end()
}

func (p *Pin) end() {
	p.once.Do(func() {
		p.db.pinMu.Lock()
		tx := p.tx
		p.ended = true
		p.db.pinMu.Unlock()
		tx.Rollback()
	})
}

// Renew moves the pin to a read transaction of the file as it is now and
// ends the one it held, when live, given the new transaction (with no
// write in flight), reports that every value kept through the pin is the
// new transaction's value too, where it was: not freed by a write since
// the pin began. That a key still holds the same bytes is not enough:
// bbolt moves every value of a leaf page when it writes any key on it,
// and frees the old page, which a write may reuse once no reader that
// began before the move is left. A value that did not move stays where it
// is: no write could remap the file while the old transaction was open,
// and the new one begins before it ends. What it spares the writes: bbolt
// cannot reuse a page freed after the oldest read transaction began, and
// rewrites the list of all such pages, sorted, at every commit, which cost
// an ingest holding a pin over thousands of document writes more CPU than
// the rest of its commits (docs/benchmarks/ingest-bound.md, session 21).
// It does nothing to a pin released or evicted, or when live reports
// false. Errors are bbolt's (beginning the transaction), the pin then
// left as it was. It waits for the writes in flight; it is safe for
// concurrent use.
func (p *Pin) Renew(live func(now *Tx) bool) error {
	db := p.db
	db.gate.Lock()
	defer db.gate.Unlock()
	return db.guard(func() error {
		tx, err := db.bolt.Begin(false)
		if err != nil {
			return err
		}
		kept := false
		defer func() {
			if !kept { // live said no, or panicked (a fault in a damaged file)
				tx.Rollback()
			}
		}()
		if !live(&Tx{tx: tx}) {
			return nil
		}
		db.pinMu.Lock()
		old := p.tx
		_, held := db.pins[p]
		if held && !p.ended {
			p.tx, kept = tx, true
		}
		db.pinMu.Unlock()
		if !kept {
			return nil
		}
		return old.Rollback()
	})
}

// evictPins evicts every pin (see Pin): evict, then release. A pin whose
// evict panics (a fault reading a damaged file) stays, for the next write
// to try again. Calls are serialised, so no pin is evicted twice.
func (db *DB) evictPins(closing bool) {
	db.evictMu.Lock()
	defer db.evictMu.Unlock()
	db.pinMu.Lock()
	pins := make([]*Pin, 0, len(db.pins))
	for p := range db.pins {
		pins = append(pins, p)
	}
	db.pinMu.Unlock()
	for _, p := range pins {
		p.evict(closing)
		p.Release()
	}
}

// keptRanges returns the address ranges [start, end) that pins keep
// mapped (Keep), sorted.
func (db *DB) keptRanges() [][2]uintptr {
	db.pinMu.Lock()
	defer db.pinMu.Unlock()
	var rs [][2]uintptr
	for p := range db.pins {
		for _, b := range p.keep {
			if len(b) > 0 {
				a := addrOf(b)
				rs = append(rs, [2]uintptr{a, a + uintptr(len(b))})
			}
		}
	}
	slices.SortFunc(rs, func(a, b [2]uintptr) int { return cmp.Compare(a[0], b[0]) })
	return rs
}
