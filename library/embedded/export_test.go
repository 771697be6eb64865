package embedded

import (
	"context"
	"sync/atomic"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/library"
)

// backendOf is l's embedded backend, for the package's external tests.
func backendOf(l *library.Library) *Backend { return l.Backend().(*Backend) }

// VectorIndex returns l's vector index (nil before the library has
// vectors, or when its deferred load failed), waiting for a deferred load.
func VectorIndex(l *library.Library) *vector.Index {
	x, _ := backendOf(l).waitVectors(context.Background())
	return x
}

// LexIndex returns l's BM25 index.
func LexIndex(l *library.Library) *lexical.Index { return backendOf(l).lex }

// SetDeferredRead makes fn run inside every deferred vector load, after its
// read transaction and before it replays the writes queued meanwhile; the
// returned func undoes it.
func SetDeferredRead(fn func()) (restore func()) {
	deferredRead = fn
	return func() { deferredRead = nil }
}

// VectorsDeferred reports whether New deferred l's vector index and it is
// not loaded yet, and whether its load has begun.
func VectorsDeferred(l *library.Library) (pending, begun bool) {
	d := backendOf(l).pending()
	return d != nil, d != nil && d.begun.Load()
}

// FailIndexSaves makes every index Save's transaction fail with err after
// the indexes wrote into it, as a full disk fails a commit; the returned
// func undoes it.
func FailIndexSaves(err error) (restore func()) {
	failIndexSave = func() error { return err }
	return func() { failIndexSave = nil }
}

// HoldTurns takes every search turn of l's backend; the returned func
// gives them back.
func HoldTurns(l *library.Library) (release func()) { return holdTurns(backendOf(l).turn) }

// HoldAgainTurns is HoldTurns for the gate of second rankings.
func HoldAgainTurns(l *library.Library) (release func()) { return holdTurns(backendOf(l).again) }

func holdTurns(t turns) (release func()) {
	for range cap(t) {
		t <- struct{}{}
	}
	return func() {
		for range cap(t) {
			<-t
		}
	}
}

// CountReadBacks counts the times a write's added passages are read back
// from the store to be indexed; the returned func reads the count and
// undoes it.
func CountReadBacks() (count func() int64) {
	var n atomic.Int64
	readBack = func() { n.Add(1) }
	return func() int64 { readBack = nil; return n.Load() }
}

// SetPrewrite makes a Save write a new BM25 segment ahead of its
// transaction, in steps (on, the default), or inside it; restore undoes it.
func SetPrewrite(on bool) (restore func()) {
	old := noPrewrite
	noPrewrite = !on
	return func() { noPrewrite = old }
}

// AfterPrewrite makes fn run in every Save between the BM25 segment's
// steps (PrewriteSegment) and the Save's transaction; restore undoes it.
func AfterPrewrite(fn func()) (restore func()) {
	afterPrewrite = fn
	return func() { afterPrewrite = nil }
}

// SetAdopt makes a Save that wrote a BM25 segment have the index read it in
// place (on, the default) or keep holding it, from min passages on (the
// prewrite's threshold too); restore undoes both.
func SetAdopt(on bool, min int) (restore func()) {
	oldAdopt, oldMin := noAdopt, prewriteMinPassages
	noAdopt, prewriteMinPassages = !on, min
	return func() { noAdopt, prewriteMinPassages = oldAdopt, oldMin }
}
