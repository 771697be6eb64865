package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"iter"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// castagnoli is the CRC-32C table of vector checksums (the vector index
// uses the same polynomial over the same little-endian bytes).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// VectorSum is the checksum the store keeps for a stored vector: the
// CRC-32C (Castagnoli) of its little-endian float32 bytes.
func VectorSum(encoded []byte) uint32 { return crc32.Checksum(encoded, castagnoli) }

// putVector writes a vector and its checksum.
func putVector(tx *bolt.Tx, seq uint64, v []float32) error {
	enc := EncodeVector(v)
	if err := tx.Bucket(bucketVectors).Put(seqKey(seq), enc); err != nil {
		return err
	}
	return tx.Bucket(bucketSums).Put(seqKey(seq), binary.LittleEndian.AppendUint32(nil, VectorSum(enc)))
}

// deleteVector removes a vector and its checksum.
func deleteVector(tx *bolt.Tx, seq uint64) error {
	if err := tx.Bucket(bucketVectors).Delete(seqKey(seq)); err != nil {
		return err
	}
	return tx.Bucket(bucketSums).Delete(seqKey(seq))
}

// fillSums (re)computes every vector's checksum: the upgrade from schema 1,
// which had none. Callers hold a write transaction.
func fillSums(tx *bolt.Tx) error {
	if err := tx.DeleteBucket(bucketSums); err != nil && tx.Bucket(bucketSums) != nil {
		return fmt.Errorf("drop vector checksums: %w", err)
	}
	sb, err := tx.CreateBucket(bucketSums)
	if err != nil {
		return fmt.Errorf("create vector checksums: %w", err)
	}
	sb.FillPercent = 1 // appended in key order
	err = tx.Bucket(bucketVectors).ForEach(func(k, v []byte) error {
		return sb.Put(k, binary.LittleEndian.AppendUint32(nil, VectorSum(v)))
	})
	if err != nil {
		return fmt.Errorf("fill vector checksums: %w", err)
	}
	return nil
}

// VectorSums iterates over every stored vector's sequence number and
// checksum (VectorSum) in sequence order, without reading the vectors: the
// checksums live in their own small bucket. In a read-only library written
// before the checksums existed (schema 1) it computes them from the vectors.
func (t *Tx) VectorSums() iter.Seq2[uint64, uint32] {
	return func(yield func(uint64, uint32) bool) {
		b := t.tx.Bucket(bucketSums)
		if b == nil {
			c := t.tx.Bucket(bucketVectors).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if !yield(SeqFromKey(k), VectorSum(v)) {
					return
				}
			}
			return
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) == 4 && !yield(SeqFromKey(k), binary.LittleEndian.Uint32(v)) {
				return
			}
		}
	}
}

var vectorBufs = sync.Pool{New: func() any { return new([]float32) }}

// ReadVectors calls fn(i, vec) for each seqs[i] that has a stored vector,
// one call at a time, all in one short read transaction (a long one would
// block writers that grow the file). vec is decoded into a buffer reused
// between calls and between ReadVectors calls: it is valid only during the
// call. It satisfies the vector index's Source. It is safe for concurrent
// use; it returns ErrCorrupt for a damaged file.
func (db *DB) ReadVectors(seqs []uint64, fn func(i int, vec []float32)) error {
	return db.view(func(tx *bolt.Tx) error {
		readVectors(tx, seqs, fn)
		return nil
	})
}

// ReadVectors is DB.ReadVectors inside this transaction (for a caller that
// already holds one: opening a second read transaction on the same
// goroutine can deadlock against a writer growing the file).
func (t *Tx) ReadVectors(seqs []uint64, fn func(i int, vec []float32)) error {
	readVectors(t.tx, seqs, fn)
	return nil
}

func readVectors(tx *bolt.Tx, seqs []uint64, fn func(i int, vec []float32)) {
	bp := vectorBufs.Get().(*[]float32)
	defer vectorBufs.Put(bp)
	b := tx.Bucket(bucketVectors)
	var k [8]byte
	for i, seq := range seqs {
		binary.BigEndian.PutUint64(k[:], seq)
		if raw := b.Get(k[:]); raw != nil && len(raw)%4 == 0 {
			*bp = DecodeVector(*bp, raw)
			fn(i, *bp)
		}
	}
}
