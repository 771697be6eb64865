package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/store"
)

// deferredVectors is a vector index Open did not wait for: a library whose
// default mode does not use vectors is ready once its BM25 index is loaded
// (at a million passages the graph takes as long again). The load starts
// at the first need: a vector or hybrid search, Counts or a write to a
// graph (a write leaves a Scan index as stored: leaveVectors), and runs
// once, in a goroutine of its own, from a read transaction of its own.
// Writes applied once it has begun wait in queue and are replayed on the
// loaded graph when they are younger than its transaction (by store
// generation), so a write is never lost nor applied twice.
type deferredVectors struct {
	begun atomic.Bool
	done  chan struct{} // closed when the load ended; then err is set
	err   error
	queue []store.PutResult // guarded by embedded.mu
}

// deferredRead, set by tests, runs when the deferred load's read
// transaction has ended, before the queued writes are replayed.
var deferredRead func()

func newDeferredVectors() *deferredVectors {
	return &deferredVectors{done: make(chan struct{})}
}

// pending returns the deferred load, nil once the vector index is loaded
// (or was never deferred).
func (l *Backend) pending() *deferredVectors {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.lazy
}

// startVectors starts the deferred load, unless it has started already.
func (l *Backend) startVectors(d *deferredVectors) {
	if d.begun.CompareAndSwap(false, true) {
		go l.loadDeferred(d)
	}
}

// waitVectors returns the vector index, loading it first if Open deferred
// it: nil before the library has vectors. It returns ctx's error when ctx
// ends first (the load goes on), or the load's.
func (l *Backend) waitVectors(ctx context.Context) (*vector.Index, error) {
	d := l.pending()
	if d == nil {
		return l.vectors(), nil
	}
	l.startVectors(d)
	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if d.err != nil {
		return nil, d.err
	}
	return l.vectors(), nil
}

// loadDeferred loads the vector index, replays the writes queued
// meanwhile, then makes it the library's. A repair the load made (codes
// read from the stored vectors, a format upgrade) is saved at once when no
// write came since: what Open does for an index it loads itself.
func (l *Backend) loadDeferred(d *deferredVectors) {
	start := time.Now()
	var gen uint64
	var repaired bool
	var vec *vector.Index
	err := l.db.View(func(tx *store.Tx) (err error) {
		gen, _ = tx.Generation()
		vec, repaired, err = l.readVectorIndex(tx)
		return err
	})
	if deferredRead != nil {
		deferredRead()
	}
	if err == nil {
		err = l.replay(d, vec, gen)
	}
	if err != nil {
		l.mu.Lock()
		d.err, d.queue = fmt.Errorf("load vector index: %w", err), nil
		l.mu.Unlock()
		close(d.done)
		l.opts.Logger.Error("vector index not loaded: vector and hybrid searches fail until the library is opened again", "err", err)
		return
	}
	close(d.done) // before saving: a Save waits for done
	l.opts.Logger.Info("vector index loaded after start-up", "passages", vec.Len(), "took", time.Since(start).Round(time.Millisecond))
	if repaired {
		if err := l.saveUnchanged(gen); err != nil && !errors.Is(err, store.ErrReadOnly) {
			l.opts.Logger.Warn("could not save the repaired vector index; the next open repairs it again", "err", err)
		}
	}
}

// replay applies to vec the writes queued while it loaded that its read
// transaction, at generation gen, did not see, and then hands vec to the
// library. Vectors are read outside the lock, so writes keep queueing;
// the last, empty, round swaps vec in under it. Replaying out of order is
// safe: passage numbers are never reused, and a passage's vector is read
// as it is now (one removed since is skipped).
func (l *Backend) replay(d *deferredVectors, vec *vector.Index, gen uint64) error {
	for {
		l.mu.Lock()
		q := d.queue
		d.queue = nil
		if len(q) == 0 {
			l.vec, l.lazy = vec, nil
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		slices.SortFunc(q, func(a, b store.PutResult) int { return compareGen(a.Generation, b.Generation) })
		for _, res := range q {
			if res.Generation <= gen {
				continue // in the graph as loaded
			}
			if err := l.applyVectors(vec, res, nil); err != nil {
				return err
			}
		}
	}
}

func compareGen(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// saveUnchanged saves the indexes when the store is still at generation
// gen: no write came after the deferred load's transaction (a reindex,
// which replaces the persisted graph, is such a write).
func (l *Backend) saveUnchanged(gen uint64) error {
	return l.updateIndexes(-1, func(tx *store.Tx) error {
		if now, ok := tx.Generation(); !ok || now != gen {
			return nil
		}
		return l.saveIndexes(tx, l.vectors())
	})
}

// queueVectors queues res for the deferred load and starts it (a write
// needs the graph up to date before its Save); it reports false when the
// vector index is loaded and res should be applied to it now.
func (l *Backend) queueVectors(res store.PutResult) bool {
	l.mu.Lock()
	d := l.lazy
	if d != nil && d.err == nil {
		d.queue = append(d.queue, res)
	}
	l.mu.Unlock()
	if d == nil {
		return false
	}
	l.startVectors(d)
	return true
}

// savedVectors returns the vector index Save should persist: nil while a
// deferred load has not started (nothing can have changed in it); once
// started, Save waits for it, so that the writes queued are saved.
func (l *Backend) savedVectors() *vector.Index {
	d := l.pending()
	if d == nil {
		return l.vectors()
	}
	if !d.begun.Load() {
		return nil
	}
	<-d.done
	return l.vectors()
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
