package store

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SalvageReport says what Salvage copied out of a damaged library.
type SalvageReport struct {
	Copied   int      // documents copied whole, with passages, vectors and original
	Lost     []string // ids of documents that could not be read whole
	Settings int      // settings copied (link key, secret path, …)
	// Incomplete is set when the list of documents itself could not be read
	// to the end: documents after the damage are not even named in Lost.
	Incomplete bool
}

// Salvage copies every document of the library file at src that can still be
// read whole — record, text, passages, vectors and original — into dst, a
// library opened for writing, together with the embedder identity and the
// settings. A document with any unreadable part is reported in Lost, never
// copied half. Derived indexes are not copied: they are rebuilt from the
// passages and vectors. src is opened read-only and never written; each
// document is read in its own guarded transaction, so damage in one part of
// the file costs only the documents stored there. Salvage fails only when src
// cannot be opened at all or dst cannot be written.
func Salvage(src string, dst *DB) (SalvageReport, error) {
	var rep SalvageReport
	var sdb *bolt.DB
	err := guardPath(src, func() (err error) {
		sdb, err = bolt.Open(src, 0o400, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("open damaged library %s: %w", src, err)
	}
	defer sdb.Close()
	view := func(fn func(tx *bolt.Tx) error) error {
		return guardPath(src, func() error { return sdb.View(fn) })
	}
	if err := salvageMeta(view, dst, &rep); err != nil {
		return rep, err
	}
	ids, complete := salvageIDs(view)
	rep.Incomplete = !complete
	for _, id := range ids {
		err := salvageDoc(view, dst, id)
		switch {
		case err == nil:
			rep.Copied++
		case errors.Is(err, errDst):
			return rep, err
		default:
			rep.Lost = append(rep.Lost, id)
		}
	}
	return rep, nil
}

// errDst marks a failure to write the new library, which stops Salvage.
var errDst = errors.New("write salvaged library")

func salvageMeta(view func(func(*bolt.Tx) error) error, dst *DB, rep *SalvageReport) error {
	var emb *EmbedderInfo
	settings := map[string][]byte{}
	_ = view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			emb, _ = getEmbedder(m)
		}
		if s := tx.Bucket(bucketSettings); s != nil {
			_ = s.ForEach(func(k, v []byte) error {
				settings[string(k)] = bytes.Clone(v)
				return nil
			})
		}
		return nil
	})
	if emb != nil {
		if err := dst.SetEmbedder(*emb); err != nil {
			return fmt.Errorf("%w: %w", errDst, err)
		}
	}
	for k, v := range settings {
		if err := dst.PutSetting(k, v); err != nil {
			return fmt.Errorf("%w: %w", errDst, err)
		}
		rep.Settings++
	}
	return nil
}

// salvageIDs lists the document ids it can read; complete is false when the
// walk stopped at damage.
func salvageIDs(view func(func(*bolt.Tx) error) error) (ids []string, complete bool) {
	err := view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		if b == nil {
			return ErrCorrupt
		}
		return b.ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	return ids, err == nil
}

func salvageDoc(view func(func(*bolt.Tx) error) error, dst *DB, id string) error {
	var (
		doc      *Document
		chunks   []Chunk
		vectors  [][]float32
		original []byte
	)
	err := view(func(tx *bolt.Tx) error {
		var err error
		if doc, err = getDoc(tx, id); err != nil {
			return err
		}
		text := tx.Bucket(bucketTexts).Get([]byte(id))
		if text == nil {
			return fmt.Errorf("document %s: no text", id)
		}
		doc.Text = string(text)
		original = bytes.Clone(tx.Bucket(bucketOriginals).Get([]byte(id)))
		for _, seq := range doc.Chunks {
			c, err := decodeChunk(seq, tx.Bucket(bucketChunks).Get(seqKey(seq)))
			if err != nil {
				return err
			}
			v := tx.Bucket(bucketVectors).Get(seqKey(seq))
			if v == nil || len(v)%4 != 0 {
				return fmt.Errorf("passage %d: no vector", seq)
			}
			chunks = append(chunks, *c)
			vectors = append(vectors, DecodeVector(nil, v))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := dst.PutDocument(doc, chunks, vectors, original); err != nil {
		if errors.Is(err, ErrDimensions) {
			return err // a damaged vector: this document is lost, not the run
		}
		return fmt.Errorf("%w: %w", errDst, err)
	}
	return nil
}
