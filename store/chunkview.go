package store

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// ViewChunks calls fn with each of the passages seqs in order, in one read
// transaction, until fn returns false; fn gets nil for a passage that is
// not there or whose record is malformed. Nothing is copied, which is what
// it is for: the strings of the Chunk fn gets (DocID, Text, Headings) are
// the database file's memory, valid only until fn returns, and the Chunk
// itself is reused for the next passage; fn copies what it keeps. fn must
// not use db (a read transaction opened inside another can deadlock with a
// writer), and a panic in it comes back as an error matching ErrCorrupt,
// as a fault in the file does. It is safe for concurrent use.
func (db *DB) ViewChunks(seqs []uint64, fn func(i int, c *Chunk) bool) error {
	var c Chunk
	var heads []string // reused
	return db.view(func(tx *bolt.Tx) error {
		return eachChunkRecord(tx, seqs, func(i int, v []byte) (bool, error) {
			r, err := parseChunk(v)
			if err == nil {
				heads, err = r.appendHeadings(heads[:0], aliasString)
			}
			if err != nil {
				return fn(i, nil), nil
			}
			c = Chunk{Seq: seqs[i], Index: r.f[0], Start: r.f[1], End: r.f[2], PageStart: r.f[3], PageEnd: r.f[4],
				DocID: aliasString(r.docID), Text: aliasString(r.text)}
			if len(heads) > 0 {
				c.Headings = heads
			}
			return fn(i, &c), nil
		})
	})
}

// aliasString is b as a string without a copy: b must not change while
// the string is in use.
func aliasString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// aliasBytes is s as bytes without a copy, for a value bbolt only reads
// (Put keeps it until the commit writes it out, and never writes to it): a
// document's whole text, which []byte(s) would copy once more.
func aliasBytes(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// eachChunkRecord calls fn, in tx, with the record of each passage of seqs
// in order (nil for one that is not there) until fn returns false or an
// error, which it returns.
func eachChunkRecord(tx *bolt.Tx, seqs []uint64, fn func(i int, v []byte) (bool, error)) error {
	// One cursor and key for every lookup: Bucket.Get makes a cursor, and
	// grows its page stack, each time.
	cur := tx.Bucket(bucketChunks).Cursor()
	var key [8]byte
	for i, s := range seqs {
		binary.BigEndian.PutUint64(key[:], s)
		k, v := cur.Seek(key[:])
		if !bytes.Equal(k, key[:]) {
			v = nil // the next key: s is not there
		}
		if more, err := fn(i, v); err != nil || !more {
			return err
		}
	}
	return nil
}
