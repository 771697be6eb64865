package embedded

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/store"
)

// Save persists what changed in the indexes since the last Save or Open, in
// one transaction, with the store generation they reflect (read before
// they are written: a write applied meanwhile is then saved too, under an
// older generation, which costs the next open a walk, never a miss). When
// nothing changed and that generation is the one recorded, it begins no
// transaction at all (unchanged): no commit, no sync of the file, and the
// BM25 index keeps reading in place (a write would evict its pin).
func (l *Backend) Save(ctx context.Context) error {
	vec := l.savedVectors() // waits for a deferred load under way
	if same, err := l.unchanged(vec, l.mark.value()); err != nil || same {
		return err
	}
	_, segment := l.lex.SavePlan()
	if err := l.prewriteSegment(); err != nil {
		l.mark.lose()
		return err
	}
	if afterPrewrite != nil {
		afterPrewrite()
	}
	err := l.updateIndexes(l.saveSize(), func(tx *store.Tx) error {
		gen := l.mark.value()
		if err := l.saveIndexes(tx, vec); err != nil {
			return err
		}
		return putIndexedGen(tx, gen)
	})
	if err == nil && segment {
		l.adoptSegment()
	}
	return err
}

// unchanged reports whether a Save would write what the file holds
// already: neither index has unsaved changes and the generation recorded
// with them is gen. A write applied after it looked is saved by the next
// Save, as one applied after a Save is. Errors are the store's.
func (l *Backend) unchanged(vec *vector.Index, gen uint64) (bool, error) {
	if l.lex.Unsaved() || (vec != nil && vec.Unsaved()) {
		return false, nil
	}
	var saved uint64
	var ok bool
	err := l.db.View(func(tx *store.Tx) (err error) { saved, ok, err = savedGen(tx); return err })
	if err != nil {
		return false, fmt.Errorf("read index generation: %w", err)
	}
	return ok && saved == gen, nil
}

// failIndexSave, set by tests, fails an index Save's transaction after the
// indexes wrote into it (a full disk at commit).
var failIndexSave func() error

// prewriteSegment writes the new BM25 segment a Save is about to write, if
// any, in transactions of its own (lexical.Index.PrewriteSegment), so that
// the Save's transaction holds its manifest and not the whole segment. The
// index first stops reading the old segment in place (its pin would be
// evicted by these writes, from inside the index's lock), unless the map
// has room for every step (keepPinForSegment): then the new segment is
// written from the old one's bytes in the file, copying neither. A library under
// prewriteMinPassages writes its segment inside the Save's transaction, as
// one commit: its segment is a few MiB, too small for steps to save memory.
// Errors are the store's.
func (l *Backend) prewriteSegment() error {
	_, segment := l.lex.SavePlan()
	if segment {
		l.live.set(nil) // the new segment frees the old one's pages
	}
	if !segment || noPrewrite || l.lex.Len() < prewriteMinPassages {
		return nil
	}
	update := l.db.Update
	if l.keepPinForSegment() { // the steps read the old segment in place
		update = func(fn func(tx *store.Tx) error) error { return l.db.UpdateSized(int64(prewriteStep), fn) }
	} else {
		l.releasePin()
	}
	err := l.lex.PrewriteSegment(func(write func(kv index.KV) error) error {
		return update(func(tx *store.Tx) error {
			kv, err := tx.Aux(AuxLexical)
			if err != nil {
				return err
			}
			return write(kv)
		})
	})
	if err != nil {
		return fmt.Errorf("save lexical index: %w", err)
	}
	return nil
}

// afterPrewrite, set by tests, runs in Save between prewriteSegment and
// the Save's transaction, where an ingest's document writes go on.
var afterPrewrite func()

// noPrewrite, set by tests, makes a Save write a new segment in its own
// transaction, as before PrewriteSegment (to measure the difference).
var noPrewrite bool

// prewriteMinPassages is the size from which a new segment is written in
// steps (about 8 MiB of segment at ~900 bytes a passage), and read in
// place once written (adoptSegment). A variable for tests.
var prewriteMinPassages = 8192

// releasePin makes the BM25 index copy what it reads in place and ends the
// read transaction that kept it (pinLexicalIndex); nothing when it reads
// nothing in place. Release is idempotent, and the store no longer evicts
// a released pin.
func (l *Backend) releasePin() {
	if l.pin == nil {
		return
	}
	l.lex.Detach()
	l.pin.Release()
}

// recordSize is what a Save is taken to write per passage added or
// removed, for saveSize: its lexical record, its vector's codes and the
// graph nodes relinked around it (tens of a few hundred bytes each).
const recordSize = 16 << 10

// saveSize is how many bytes a Save is taken to write, -1 when it may be
// large: a new BM25 segment. A Save of records only keeps the BM25 index
// reading its segment in place (store.DB.UpdateSized): a removal, or a
// small ingest, then adds tombstones and records beside the segment
// instead of copying it out. (A vector index saved whole, after a repair,
// is larger than this says: its write evicts the pins once it has waited
// for a remap, store.smallWriteWait.)
func (l *Backend) saveSize() int64 {
	records, segment := l.lex.SavePlan()
	if segment && !l.lex.Prewritten() {
		return -1
	}
	return int64(records) * recordSize
}

// updateIndexes runs fn, which saves indexes, in a write transaction of
// about size bytes (-1: maybe large, store.DB.Update); when the
// transaction fails the saved generation is lost for good (genMark).
func (l *Backend) updateIndexes(size int64, fn func(tx *store.Tx) error) error {
	update := l.db.Update
	if size >= 0 {
		update = func(fn func(tx *store.Tx) error) error { return l.db.UpdateSized(size, fn) }
	}
	err := update(func(tx *store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if failIndexSave != nil {
			return failIndexSave()
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrReadOnly) {
		l.mark.lose()
	}
	return err
}

// saveIndexes saves the lexical index and vec (nil: none to save).
func (l *Backend) saveIndexes(tx *store.Tx, vec *vector.Index) error {
	kv, err := tx.Aux(AuxLexical)
	if err != nil {
		return err
	}
	saves := l.lex.SegmentSaves()
	err = l.lex.Save(kv)
	if l.lex.SegmentSaves() != saves {
		l.live.set(nil) // before the commit frees the old segment's pages
	}
	if err != nil {
		return fmt.Errorf("save lexical index: %w", err)
	}
	if vec == nil {
		return nil
	}
	if kv, err = tx.Aux(AuxVectors); err != nil {
		return err
	}
	if err := vec.Save(kv); err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	return nil
}
