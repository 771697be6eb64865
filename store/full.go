package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// FullDocument returns a document with its text, its passages in order,
// their vectors and its original bytes (nil when none is kept), all read in
// one transaction, so they belong together. It returns ErrNotFound for an
// unknown id and an error for a passage without a vector. Safe for
// concurrent use.
func (db *DB) FullDocument(id string) (doc *Document, chunks []Chunk, vecs [][]float32, original []byte, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		if doc, err = getDoc(tx, id); err != nil {
			return err
		}
		doc.Text = string(tx.Bucket(bucketTexts).Get([]byte(id)))
		chunks, vecs = make([]Chunk, len(doc.Chunks)), make([][]float32, len(doc.Chunks))
		for i, seq := range doc.Chunks {
			v := tx.Bucket(bucketChunks).Get(seqKey(seq))
			if v == nil {
				return fmt.Errorf("%w: passage %d of %s", ErrNotFound, i, id)
			}
			c, err := decodeChunk(seq, v)
			if err != nil {
				return err
			}
			chunks[i] = *c
			if vb := tx.Bucket(bucketVectors).Get(seqKey(seq)); vb != nil {
				vecs[i] = DecodeVector(nil, vb)
			} else {
				return fmt.Errorf("passage %s has no vector", c.ID())
			}
		}
		if o := tx.Bucket(bucketOriginals).Get([]byte(id)); o != nil {
			original = append([]byte{}, o...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return doc, chunks, vecs, original, nil
}
