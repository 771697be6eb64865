package embedded

import (
	"sync/atomic"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/store"
)

// Keeping the BM25 index's heap bounded during a long ingest
// (docs/benchmarks/ingest-bound.md). Each new segment a Save writes is
// adopted (lexical.Index.Adopt): the index then reads its passages' terms
// and its posting lists in the file, in place, under a new pin, instead of
// holding them in its own memory; the next segment is written from those
// bytes while the pin holds them (prewriteSegment keeps it when bbolt's
// map has room for the whole segment, so no step has to remap the file).
// What stays in the heap between segments is the fixed-width rows and what
// was added since the last segment.

// segmentRoom is the room past the file's data that bbolt's memory map
// must have for a new segment to be written while the old one is read in
// place: twice the segment (its pages, and bbolt's freelist and branch
// pages around them, which cannot reuse pages freed while the pin is
// held), and what each step's store.DB.UpdateSized asks to be left
// besides (twice the step and 16 MiB), with slack. A step that found less
// would evict the pin from inside PrewriteSegment, whose lock the evict
// (Detach) waits for.
func segmentRoom(segment int64) int64 { return 2*segment + 2*prewriteStep + 96<<20 }

// keepPinForSegment reports whether prewriteSegment may write the next
// segment while the index reads the current one in place: the pin is
// held and the map has room for all of the segment's steps, so none of
// them will remap the file (which would wait on the pin, whose evict would
// wait on the index's lock, held by PrewriteSegment).
func (l *Backend) keepPinForSegment() bool {
	if l.pin == nil || noAdopt {
		return false
	}
	return l.db.MapRoom() >= segmentRoom(l.lex.SegmentBytes())
}

// adoptSegment makes the BM25 index read the segment the last Save wrote
// in place, under a new pin, and releases the old pin, if any. It changes
// nothing when the index does not take the segment (lexical.Index.Adopt:
// changes since, records beside it) or the pin cannot be had; the index
// then keeps what it holds, as before. It is called after a Save that
// wrote a segment, with no write in flight.
func (l *Backend) adoptSegment() {
	if noAdopt || l.lex.Len() < prewriteMinPassages {
		return
	}
	adopted := false
	pin, err := l.db.Pin(func(tx *store.Tx) error {
		kv, err := tx.Aux(AuxLexical)
		if err != nil {
			return err
		}
		adopted, err = l.lex.Adopt(lexical.InPlace(kv))
		return err
	}, l.evictLexical)
	if err != nil || !adopted {
		if pin != nil {
			pin.Release()
		}
		if err != nil {
			l.opts.Logger.Debug("lexical segment not read in place", "err", err)
		}
		return
	}
	for _, b := range l.lex.InPlaceBytes() {
		pin.Keep(b)
	}
	if l.pin != nil {
		l.pin.Release() // the index no longer reads through it
	}
	l.pin = pin
	l.live.set(pin)
}

// livePin renews the pin through which the BM25 index reads the segment it
// adopted (store.Pin.Renew) every renewEvery document writes, while that
// segment is the file's: from adoptSegment until prewriteSegment begins to
// replace it. Held over a whole ingest's document writes instead, the pin
// made every commit rewrite and sort the list of the pages freed since it
// began (tens of thousands), which doubled the CPU of a 100k ingest
// (docs/benchmarks/ingest-bound.md, session 21). It is safe for
// concurrent use.
type livePin struct {
	pin    atomic.Pointer[store.Pin]
	writes atomic.Uint64
}

// renewEvery is how many document writes a renewable pin is held over.
const renewEvery = 16

// set makes p the pin to renew; nil stops renewing, before a write that
// may free what the pin's values are.
func (lp *livePin) set(p *store.Pin) { lp.pin.Store(p) }

// wrote counts a document write and renews the pin every renewEvery of
// them, when inPlace reports, in the transaction it would be renewed to,
// that the values read through it did not move (store.Pin.Renew): a Save
// of records that adds dictionary terms moves the segment's first chunk,
// which shares bbolt's leaf page with the dictionary's last. A pin set to
// nil meanwhile (set) is not renewed: Renew checks with no write in
// flight. Its errors only leave the pin as it was.
func (lp *livePin) wrote(inPlace func(now *store.Tx) bool) {
	p := lp.pin.Load()
	if p == nil || lp.writes.Add(1)%renewEvery != 0 {
		return
	}
	_ = p.Renew(func(now *store.Tx) bool { return lp.pin.Load() == p && inPlace(now) })
}

// lexicalInPlace reports whether what the BM25 index reads in place is
// still tx's (lexical.Index.StillInPlace).
func (l *Backend) lexicalInPlace(tx *store.Tx) bool {
	kv, err := tx.Aux(AuxLexical)
	return err == nil && l.lex.StillInPlace(kv)
}

// noAdopt, set by tests and measurements, leaves the BM25 index holding
// every segment it writes in its own memory, as before adoptSegment.
var noAdopt bool

// prewriteStep is what one step of PrewriteSegment writes at most: 32 MiB
// and a chunk (lexical's stepBytes and segment chunk).
const prewriteStep = 33 << 20
