package store

import (
	"errors"
	"fmt"
	"iter"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Tx is a read or read-write transaction handed to View and Update
// callbacks. It must not be used after the callback returns.
type Tx struct {
	tx     *bolt.Tx
	bumped bool // PutVector numbered this transaction's write
}

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(tx *Tx) error) error {
	return db.view(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// Update runs fn in a read-write transaction; fn's error rolls it back.
func (db *DB) Update(fn func(tx *Tx) error) error {
	return db.update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// Aux returns the auxiliary bucket owned by a derived index. In a read-only
// transaction a bucket that does not exist yet reads as empty and refuses
// writes.
func (t *Tx) Aux(name string) (*Bucket, error) {
	parent := t.tx.Bucket(bucketAux)
	b := parent.Bucket([]byte(name))
	if b == nil && t.tx.Writable() {
		var err error
		if b, err = parent.CreateBucket([]byte(name)); err != nil {
			return nil, fmt.Errorf("create aux bucket %s: %w", name, err)
		}
	}
	return &Bucket{b: b}, nil
}

// DropAux deletes an auxiliary bucket and everything in it.
func (t *Tx) DropAux(name string) error {
	err := t.tx.Bucket(bucketAux).DeleteBucket([]byte(name))
	if err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
		return fmt.Errorf("drop aux bucket %s: %w", name, err)
	}
	return nil
}

// Vector returns one vector, or nil when seq has none.
func (t *Tx) Vector(seq uint64) []float32 {
	v := t.tx.Bucket(bucketVectors).Get(seqKey(seq))
	if v == nil {
		return nil
	}
	return DecodeVector(nil, v)
}

// ChunkTexts iterates over every passage's sequence number and text in
// sequence order. Undecodable records are skipped.
func (t *Tx) ChunkTexts() iter.Seq2[uint64, string] {
	return func(yield func(uint64, string) bool) {
		c := t.tx.Bucket(bucketChunks).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			text, err := chunkText(v)
			if err != nil {
				continue
			}
			if !yield(SeqFromKey(k), string(text)) {
				return
			}
		}
	}
}

// ChunkSeqs iterates over every passage's sequence number in order. It
// reads keys only, so it costs little at any library size; unlike
// ChunkTexts it also yields passages whose record cannot be decoded.
func (t *Tx) ChunkSeqs() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		c := t.tx.Bucket(bucketChunks).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if !yield(SeqFromKey(k)) {
				return
			}
		}
	}
}

// ChunkText returns what ChunkTexts yields for passage seq, its IndexText
// (headings and text): ErrNotFound when there is no such passage,
// ErrCorrupt (wrapped) when its record cannot be decoded.
func (t *Tx) ChunkText(seq uint64) (string, error) {
	v := t.tx.Bucket(bucketChunks).Get(seqKey(seq))
	if v == nil {
		return "", fmt.Errorf("passage %d: %w", seq, ErrNotFound)
	}
	text, err := chunkText(v)
	if err != nil {
		return "", fmt.Errorf("passage %d: %w: %w", seq, ErrCorrupt, err)
	}
	return string(text), nil
}

// Chunks iterates over every passage in sequence order.
func (t *Tx) Chunks() iter.Seq2[uint64, *Chunk] {
	return func(yield func(uint64, *Chunk) bool) {
		c := t.tx.Bucket(bucketChunks).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			ch, err := decodeChunk(SeqFromKey(k), v)
			if err != nil {
				continue
			}
			if !yield(ch.Seq, ch) {
				return
			}
		}
	}
}

// PutVector replaces the stored vector of an existing passage. It is for
// reindexing; the caller must switch the embedder (SetEmbedder) in the same
// transaction so vectors and identity never disagree.
func (t *Tx) PutVector(seq uint64, v []float32) error {
	if t.tx.Bucket(bucketChunks).Get(seqKey(seq)) == nil {
		return fmt.Errorf("put vector %d: %w", seq, ErrNotFound)
	}
	if err := putVector(t.tx, seq, v); err != nil {
		return err
	}
	if t.bumped {
		return nil
	}
	t.bumped = true
	return bumpGeneration(t.tx, nil)
}

// SetEmbedder records a new embedder identity unconditionally (for
// reindexing, together with PutVector for every passage).
func (t *Tx) SetEmbedder(e EmbedderInfo) error {
	if e.Dimensions <= 0 {
		return fmt.Errorf("set embedder: dimensions must be positive, got %d", e.Dimensions)
	}
	return putJSON(t.tx.Bucket(bucketMeta), []byte("embedder"), e)
}

// DeleteSetting removes a setting; a missing one is not an error.
func (t *Tx) DeleteSetting(name string) error {
	return t.tx.Bucket(bucketSettings).Delete([]byte(name))
}

// Bucket is a key/value bucket owned by one derived index. It satisfies the
// index.KV interface both indexes persist into. Keys and values returned
// are valid only during the transaction.
type Bucket struct {
	b *bolt.Bucket // nil: absent in a read-only transaction
}

// ReadAhead asks the kernel to start reading the file pages under value, a
// value this bucket returned (it lies in bbolt's memory map of the file),
// so that reading it soon does not fault them in one at a time: bbolt maps
// its file for random access, without read-ahead. Only a hint: it returns
// at once, does nothing where unsupported, and the pages stay out of the
// process's resident set until read. Safe for concurrent use.
func (b *Bucket) ReadAhead(value []byte) { readAhead(value) }

// Populate maps the file pages under value, a value this bucket returned,
// into the process at once, waiting for any still to be read from disk:
// for a caller about to read all of it, this costs about half of faulting
// the pages in one at a time (MADV_POPULATE_READ, Linux 5.14 and later).
// The pages stay resident until released (DB.ReleaseMapped). Only a hint:
// where unsupported it does nothing, and the pages fault in as they are
// read. Safe for concurrent use.
func (b *Bucket) Populate(value []byte) { populate(value) }

// Get returns the value for key, or nil.
func (b *Bucket) Get(key []byte) []byte {
	if b.b == nil {
		return nil
	}
	return b.b.Get(key)
}

// Put stores a value.
func (b *Bucket) Put(key, value []byte) error {
	if b.b == nil {
		return ErrReadOnly
	}
	return b.b.Put(key, value)
}

// Delete removes a key; a missing key is not an error.
func (b *Bucket) Delete(key []byte) error {
	if b.b == nil {
		return ErrReadOnly
	}
	return b.b.Delete(key)
}

// Empty reports whether the bucket holds no key; one absent in a read-only
// transaction holds none.
func (b *Bucket) Empty() bool {
	if b.b == nil {
		return true
	}
	k, _ := b.b.Cursor().First()
	return k == nil
}

// ForEach calls fn for every key in order; fn's error stops the walk.
// While the values come from consecutive file pages, it has the kernel read
// the pages after them ahead (see aheadReader): a walk over a large bucket
// out of the page cache then reads it in large requests.
func (b *Bucket) ForEach(fn func(key, value []byte) error) error {
	if b.b == nil {
		return nil
	}
	ahead := newAheadReader(b.b.Tx())
	return b.b.ForEach(func(k, v []byte) error {
		ahead.saw(v)
		return fn(k, v)
	})
}
