package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// PutResult says what PutDocument changed, for derived indexes.
type PutResult struct {
	Added    []uint64 // sequence numbers of the new passages
	Removed  []uint64 // sequence numbers of passages it replaced
	Replaced []string // ids of documents it replaced (same path or same id)
	// Generation is the library's write generation after this write
	// (Totals.Generation), 0 when the write changed no passage.
	Generation uint64
}

// PutDocument writes a document, its passages and their vectors in one
// transaction. A document with the same id, or another document at the same
// SourcePath, is replaced in that same transaction. doc.Chunks is filled in.
// The library's embedder must be set (SetEmbedder) and every vector must have
// its dimensions (ErrDimensions). original may be nil.
func (db *DB) PutDocument(doc *Document, chunks []Chunk, vectors [][]float32, original []byte) (PutResult, error) {
	var res PutResult
	if len(chunks) != len(vectors) {
		return res, fmt.Errorf("put document %s: %d chunks but %d vectors", doc.ID, len(chunks), len(vectors))
	}
	if doc.ID == "" {
		return res, fmt.Errorf("put document: empty id")
	}
	err := db.updateSized(putSize(doc, chunks, vectors, original), func(tx *bolt.Tx) error {
		return putOne(tx, PutItem{Doc: doc, Chunks: chunks, Vectors: vectors, Original: original}, &res)
	})
	if err != nil {
		return PutResult{}, fmt.Errorf("put document %s: %w", doc.ID, err)
	}
	return res, nil
}

// checkVectors refuses vectors of other dimensions than the library's.
func checkVectors(tx *bolt.Tx, id string, vectors [][]float32) error {
	emb, err := getEmbedder(tx.Bucket(bucketMeta))
	if err != nil {
		return err
	}
	if emb == nil {
		return fmt.Errorf("put document %s: the library has no embedder recorded", id)
	}
	for i, v := range vectors {
		if len(v) != emb.Dimensions {
			return fmt.Errorf("put document %s chunk %d: %w (%d, want %d)", id, i, ErrDimensions, len(v), emb.Dimensions)
		}
	}
	return nil
}

// replaceOld deletes the document doc replaces: another one at its path,
// and an earlier version with its id.
func replaceOld(tx *bolt.Tx, doc *Document, res *PutResult) error {
	if old := tx.Bucket(bucketPaths).Get([]byte(doc.SourcePath)); old != nil && doc.SourcePath != "" && string(old) != doc.ID {
		if err := deleteDoc(tx, string(old), res); err != nil {
			return err
		}
	}
	if tx.Bucket(bucketDocs).Get([]byte(doc.ID)) != nil {
		return deleteDoc(tx, doc.ID, res)
	}
	return nil
}

// putChunks writes the passages and vectors under new sequence numbers,
// recording them in doc.Chunks, chunks and res.
func putChunks(tx *bolt.Tx, doc *Document, chunks []Chunk, vectors [][]float32, res *PutResult) error {
	cb := tx.Bucket(bucketChunks)
	doc.Chunks = make([]uint64, len(chunks))
	for i := range chunks {
		seq, err := cb.NextSequence()
		if err != nil {
			return err
		}
		chunks[i].Seq, chunks[i].DocID, chunks[i].Index = seq, doc.ID, i
		if err := cb.Put(seqKey(seq), encodeChunk(&chunks[i])); err != nil {
			return err
		}
		if err := putVector(tx, seq, vectors[i]); err != nil {
			return err
		}
		doc.Chunks[i] = seq
		res.Added = append(res.Added, seq)
	}
	return nil
}

// putRecord writes the document record, its text, its original (when not
// nil) and its path entry.
func putRecord(tx *bolt.Tx, doc *Document, original []byte) error {
	if err := putJSON(tx.Bucket(bucketDocs), []byte(doc.ID), doc); err != nil {
		return err
	}
	if err := putRow(tx, doc); err != nil {
		return err
	}
	if err := tx.Bucket(bucketTexts).Put([]byte(doc.ID), aliasBytes(doc.Text)); err != nil {
		return err
	}
	if original != nil {
		if err := tx.Bucket(bucketOriginals).Put([]byte(doc.ID), original); err != nil {
			return err
		}
	}
	if doc.SourcePath != "" {
		return tx.Bucket(bucketPaths).Put([]byte(doc.SourcePath), []byte(doc.ID))
	}
	return nil
}

// DeleteDocument removes a document, its passages, vectors and original in
// one transaction. It returns the removed passages' sequence numbers, or
// ErrNotFound.
func (db *DB) DeleteDocument(id string) ([]uint64, error) {
	res, err := db.RemoveDocument(id)
	return res.Removed, err
}

// RemoveDocument is DeleteDocument reporting the whole result: the removed
// passages, the document id and the write's generation.
func (db *DB) RemoveDocument(id string) (PutResult, error) {
	var res PutResult
	err := db.updateSized(removeSize, func(tx *bolt.Tx) error {
		res = PutResult{}
		if tx.Bucket(bucketDocs).Get([]byte(id)) == nil {
			return fmt.Errorf("document %s: %w", id, ErrNotFound)
		}
		if err := deleteDoc(tx, id, &res); err != nil {
			return err
		}
		return bumpGeneration(tx, &res)
	})
	if err != nil {
		return PutResult{}, err
	}
	return res, nil
}

func deleteDoc(tx *bolt.Tx, id string, res *PutResult) error {
	d, err := getDoc(tx, id)
	if err != nil {
		return err
	}
	cb := tx.Bucket(bucketChunks)
	for _, seq := range d.Chunks {
		if err := cb.Delete(seqKey(seq)); err != nil {
			return err
		}
		if err := deleteVector(tx, seq); err != nil {
			return err
		}
		res.Removed = append(res.Removed, seq)
	}
	pb := tx.Bucket(bucketPaths)
	if cur := pb.Get([]byte(d.SourcePath)); cur != nil && string(cur) == id {
		if err := pb.Delete([]byte(d.SourcePath)); err != nil {
			return err
		}
	}
	for _, b := range [][]byte{bucketDocs, bucketTexts, bucketOriginals} {
		if err := tx.Bucket(b).Delete([]byte(id)); err != nil {
			return err
		}
	}
	if err := deleteRow(tx, d); err != nil {
		return err
	}
	res.Replaced = append(res.Replaced, id)
	return addTotals(tx, -1, -len(d.Chunks), -d.Pages)
}

// removeSize is what a removal is taken to write (updateSized): the pages
// it changes on the way to the keys it deletes, never the records
// themselves.
const removeSize = 1 << 20

// putSize estimates the bytes a document write puts: its original, its
// text, each passage's text (stored and in the record) and vector, with a
// page of room per passage for keys and headings.
func putSize(doc *Document, chunks []Chunk, vectors [][]float32, original []byte) int64 {
	n := int64(len(original)) + int64(len(doc.Text))
	for i := range chunks {
		n += 2*int64(len(chunks[i].Text)) + 4096
	}
	for _, v := range vectors {
		n += 4 * int64(len(v))
	}
	return n
}

// PutItem is one document of PutDocuments, with PutDocument's arguments.
type PutItem struct {
	Doc      *Document
	Chunks   []Chunk
	Vectors  [][]float32
	Original []byte // nil: none
}

// PutDocuments writes several documents as PutDocument writes one, in one
// transaction: each replaces what PutDocument's would, in turn, and they
// are all stored or, on any error, none. One commit for many documents
// writes the pages they share once (each bucket's path from leaf to root,
// the meta page), where a commit each rewrote them per document: most of
// what an ingest of small files wrote (docs/benchmarks/ingest-writes.md).
// The results are in the order of items. Errors are PutDocument's.
func (db *DB) PutDocuments(items []PutItem) ([]PutResult, error) {
	var size int64
	for _, it := range items {
		if len(it.Chunks) != len(it.Vectors) {
			return nil, fmt.Errorf("put document %s: %d chunks but %d vectors", it.Doc.ID, len(it.Chunks), len(it.Vectors))
		}
		if it.Doc.ID == "" {
			return nil, fmt.Errorf("put document: empty id")
		}
		size += putSize(it.Doc, it.Chunks, it.Vectors, it.Original)
	}
	results := make([]PutResult, len(items))
	err := db.updateSized(size, func(tx *bolt.Tx) error {
		for i, it := range items {
			if err := putOne(tx, it, &results[i]); err != nil {
				return fmt.Errorf("put document %s: %w", it.Doc.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// putOne is PutDocument's transaction for it, its result in res.
func putOne(tx *bolt.Tx, it PutItem, res *PutResult) error {
	*res = PutResult{}
	if err := checkVectors(tx, it.Doc.ID, it.Vectors); err != nil {
		return err
	}
	if err := replaceOld(tx, it.Doc, res); err != nil {
		return err
	}
	if err := putChunks(tx, it.Doc, it.Chunks, it.Vectors, res); err != nil {
		return err
	}
	if err := putRecord(tx, it.Doc, it.Original); err != nil {
		return err
	}
	if err := addTotals(tx, 1, len(it.Chunks), it.Doc.Pages); err != nil {
		return err
	}
	return bumpGeneration(tx, res)
}
