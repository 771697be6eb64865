// Package kvtest is the key/value bucket the index packages' persistence
// tests save into: a map that behaves like a bbolt bucket where it matters.
// Put keeps the slices it is given without copying them, so a caller that
// reuses a buffer corrupts it; Get and ForEach hand out copies that ForEach
// zeroes after each call, so a caller that keeps them reads garbage. It
// counts writes and can be made to fail them. It is not safe for concurrent
// use.
package kvtest

import (
	"maps"
	"slices"
)

// Map is the bucket. M is its content, for tests that damage it on purpose.
type Map struct {
	M       map[string][]byte
	Puts    int
	Deletes int
	FailPut error // returned by every Put when set
}

// New returns an empty Map.
func New() *Map { return &Map{M: map[string][]byte{}} }

// Get returns a copy of the value at key, or nil.
func (kv *Map) Get(key []byte) []byte {
	v, ok := kv.M[string(key)]
	if !ok {
		return nil
	}
	return slices.Clone(v)
}

// Put stores value at key without copying it.
func (kv *Map) Put(key, value []byte) error {
	if kv.FailPut != nil {
		return kv.FailPut
	}
	kv.Puts++
	kv.M[string(key)] = value
	return nil
}

// Delete removes key.
func (kv *Map) Delete(key []byte) error {
	kv.Deletes++
	delete(kv.M, string(key))
	return nil
}

// ForEach calls fn with each key and value in key order; both are zeroed
// when fn returns.
func (kv *Map) ForEach(fn func(k, v []byte) error) error {
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

// ResetCounts sets Puts and Deletes to 0.
func (kv *Map) ResetCounts() { kv.Puts, kv.Deletes = 0, 0 }
