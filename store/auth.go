package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bucketAuth holds the sign-in state of `mcpvec serve --oauth` (clients,
// grants, token hashes, pending consents, the owner passphrase hash) as
// nested buckets, one per kind. It is created on first write, so libraries
// that never used sign-in have none and older builds ignore it.
var bucketAuth = []byte("auth")

// AuthTx is a transaction on the auth bucket, handed to the callbacks of
// AuthView and AuthUpdate. Records are opaque bytes grouped by kind; the
// package that owns sign-in decides what they mean. An AuthTx is valid only
// during its callback and is not safe for concurrent use.
type AuthTx struct {
	tx *bolt.Tx
}

// Get returns a copy of the record kind/key, or nil when there is none.
func (t *AuthTx) Get(kind, key string) []byte {
	b := t.bucket(kind)
	if b == nil {
		return nil
	}
	if v := b.Get([]byte(key)); v != nil {
		return append([]byte(nil), v...)
	}
	return nil
}

// Put stores a record. It fails with ErrReadOnly inside AuthView.
func (t *AuthTx) Put(kind, key string, value []byte) error {
	if !t.tx.Writable() {
		return ErrReadOnly
	}
	root, err := t.tx.CreateBucketIfNotExists(bucketAuth)
	if err != nil {
		return fmt.Errorf("create auth bucket: %w", err)
	}
	b, err := root.CreateBucketIfNotExists([]byte(kind))
	if err != nil {
		return fmt.Errorf("create auth bucket %q: %w", kind, err)
	}
	if err := b.Put([]byte(key), value); err != nil {
		return fmt.Errorf("put auth %s: %w", kind, err)
	}
	return nil
}

// Delete removes a record; a missing one is not an error. It fails with
// ErrReadOnly inside AuthView.
func (t *AuthTx) Delete(kind, key string) error {
	if !t.tx.Writable() {
		return ErrReadOnly
	}
	b := t.bucket(kind)
	if b == nil {
		return nil
	}
	if err := b.Delete([]byte(key)); err != nil {
		return fmt.Errorf("delete auth %s: %w", kind, err)
	}
	return nil
}

// ForEach calls fn for every record of a kind in key order, stopping at the
// first error, which it returns. fn must not modify the kind it walks; the
// slices are copies and may be kept.
func (t *AuthTx) ForEach(kind string, fn func(key string, value []byte) error) error {
	b := t.bucket(kind)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return nil // a nested bucket, not a record
		}
		return fn(string(k), append([]byte(nil), v...))
	})
}

func (t *AuthTx) bucket(kind string) *bolt.Bucket {
	root := t.tx.Bucket(bucketAuth)
	if root == nil {
		return nil
	}
	return root.Bucket([]byte(kind))
}

// AuthView runs fn in a read-only transaction on the auth records. It
// returns fn's error unchanged. Safe for concurrent use.
func (db *DB) AuthView(fn func(*AuthTx) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error { return fn(&AuthTx{tx: tx}) })
}

// AuthUpdate runs fn in a read-write transaction on the auth records: all of
// fn's writes commit together, or none when fn returns an error, which
// AuthUpdate returns unchanged. On a read-only DB it returns ErrReadOnly.
// Write transactions are serialised, so a record read and changed in one
// AuthUpdate (a single-use code) cannot be used twice.
func (db *DB) AuthUpdate(fn func(*AuthTx) error) error {
	return db.updateSmall(func(tx *bolt.Tx) error { return fn(&AuthTx{tx: tx}) })
}
