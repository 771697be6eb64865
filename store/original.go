package store

import (
	"errors"
	"fmt"
	"io"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrOriginalChanged is returned by an OriginalReader's Read when the
// document was removed or its original replaced after the reader was opened.
var ErrOriginalChanged = errors.New("original changed while being read")

// maxPiece caps the bytes one Read copies in one read transaction.
const maxPiece = 256 << 10

// OriginalReader reads a document's original file in pieces, each copied in
// its own short read transaction, so a slow consumer never holds a
// transaction open (bbolt writers wait for old readers when they remap the
// file). It implements io.ReadSeeker; it is not safe for concurrent use.
type OriginalReader struct {
	db   *DB
	id   []byte
	size int64
	off  int64
}

// OriginalReader opens a reader of a document's original file and returns it
// with its size and the document's ingestion time (a modification time for
// HTTP caching). It returns an error matching ErrNotFound when the document
// or its original does not exist.
func (db *DB) OriginalReader(id string) (*OriginalReader, int64, time.Time, error) {
	var size int64
	var modTime time.Time
	err := db.view(func(tx *bolt.Tx) error {
		d, err := getDoc(tx, id)
		if err != nil {
			return err
		}
		v := tx.Bucket(bucketOriginals).Get([]byte(id))
		if v == nil {
			return fmt.Errorf("original of %s: %w", id, ErrNotFound)
		}
		size, modTime = int64(len(v)), d.IngestedAt
		return nil
	})
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	return &OriginalReader{db: db, id: []byte(id), size: size}, size, modTime, nil
}

// Read copies the next bytes of the original into p (at most 256 KiB per
// call). It returns io.EOF at the end, and an error matching
// ErrOriginalChanged when the document was removed or its original replaced
// by one of another size since the reader was opened, and one matching
// ErrCorrupt when the file is damaged where the original lies.
func (r *OriginalReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if len(p) > maxPiece {
		p = p[:maxPiece]
	}
	var n int
	err := r.db.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketOriginals).Get(r.id)
		if int64(len(v)) != r.size {
			return fmt.Errorf("original of %s: %w", r.id, ErrOriginalChanged)
		}
		n = copy(p, v[r.off:])
		return nil
	})
	r.off += int64(n)
	return n, err
}

// Seek sets the offset of the next Read (io.Seeker). Seeking before the
// start is an error; seeking past the end makes Read return io.EOF.
func (r *OriginalReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return r.off, fmt.Errorf("seek original: invalid whence %d", whence)
	}
	if offset < 0 {
		return r.off, fmt.Errorf("seek original: negative offset %d", offset)
	}
	r.off = offset
	return offset, nil
}
