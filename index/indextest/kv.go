// Package indextest holds what the tests of index/vector and index/lexical
// share: KV, an in-memory bucket with bbolt's sharp edges, into which both
// indexes persist, Sorted, the order in which the store hands them their data,
// IDs, the ids of a result list, and WantSaveWrites, the check that an
// index's Unsaved tells whether its Save writes.
package indextest

import (
	"bytes"
	"iter"
	"maps"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/index"
)

// KV is a key/value bucket over a map that satisfies index.KV. Like bbolt
// it keeps the slices given to Put without copying (reusing a buffer would
// corrupt it) and hands out slices the caller may not keep: keys and values
// passed to ForEach are zeroed after each call. It counts writes, and Put
// fails with FailPut when that is set. Tests damage a stored graph or index
// by changing M directly. KV is not safe for concurrent use.
type KV struct {
	M       map[string][]byte
	Puts    int
	Deletes int
	FailPut error
}

// NewKV returns an empty KV.
func NewKV() *KV { return &KV{M: make(map[string][]byte)} }

// Clone returns a KV holding the same records (the values are shared) with
// no counts: the bucket as a transaction that is later rolled back saw it.
func (kv *KV) Clone() *KV { return &KV{M: maps.Clone(kv.M)} }

// Equal reports whether kv and o hold the same records, byte for byte.
func (kv *KV) Equal(o *KV) bool { return maps.EqualFunc(kv.M, o.M, bytes.Equal) }

// ResetCounts sets Puts and Deletes back to zero.
func (kv *KV) ResetCounts() { kv.Puts, kv.Deletes = 0, 0 }

// Get returns a copy of the value stored under key, or nil.
func (kv *KV) Get(key []byte) []byte {
	v, ok := kv.M[string(key)]
	if !ok {
		return nil
	}
	return slices.Clone(v)
}

// Put stores value under key (without copying it), or returns FailPut.
func (kv *KV) Put(key, value []byte) error {
	if kv.FailPut != nil {
		return kv.FailPut
	}
	kv.Puts++
	kv.M[string(key)] = value
	return nil
}

// Delete removes key.
func (kv *KV) Delete(key []byte) error {
	kv.Deletes++
	delete(kv.M, string(key))
	return nil
}

// ForEach calls fn for every record in key order, on copies it zeroes when fn
// returns, and stops at fn's first error, which it returns.
func (kv *KV) ForEach(fn func(k, v []byte) error) error {
	for _, k := range slices.Sorted(maps.Keys(kv.M)) {
		kb, vb := []byte(k), slices.Clone(kv.M[k])
		err := fn(kb, vb)
		clear(kb)
		clear(vb)
		if err != nil {
			return err
		}
	}
	return nil
}

// Sorted yields m's entries in ascending key order, as a bucket keyed by
// big-endian id hands them out: what Load reads passages and vectors from.
func Sorted[V any](m map[uint64]V) iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		for _, id := range slices.Sorted(maps.Keys(m)) {
			if !yield(id, m[id]) {
				return
			}
		}
	}
}

// Saver is an index persisted into an index.KV that tells whether it has
// changes to save.
type Saver interface {
	Unsaved() bool
	Save(kv index.KV) error
}

// WantSaveWrites checks that ix.Unsaved() is want and that ix.Save into
// into (kv, or a view of it) changes kv's records exactly when it is; after
// the Save nothing may be unsaved.
func WantSaveWrites(tb testing.TB, what string, ix Saver, into index.KV, kv *KV, want bool) {
	tb.Helper()
	if got := ix.Unsaved(); got != want {
		tb.Errorf("%s: Unsaved() = %v, want %v", what, got, want)
	}
	before := kv.Clone()
	if err := ix.Save(into); err != nil {
		tb.Fatal(err)
	}
	if changed := !kv.Equal(before); changed != want {
		tb.Errorf("%s: Save changed the stored index: %v, want %v", what, changed, want)
	}
	if ix.Unsaved() {
		tb.Errorf("%s: unsaved after Save", what)
	}
}
