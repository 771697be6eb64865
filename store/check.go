package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Check verifies the library's invariants in one read transaction: bbolt's
// own page consistency, every document's passages exist with a vector of the
// library's dimensions (and its checksum) and point back at it, no passage,
// vector or checksum is orphaned, every path and text belongs to a
// document, and the totals record and the listing rows agree with the documents. It returns all problems joined, or nil.
// It is safe for concurrent use, writes included: on a writable handle it
// runs in a write transaction it rolls back, so no write commits meanwhile.
func (db *DB) Check() error {
	var errs []error
	err := db.consistentView(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			errs = append(errs, fmt.Errorf("bbolt: %w", err))
		}
		owned, counted, err := checkDocuments(tx, &errs)
		if err != nil {
			return err
		}
		checkTotals(tx, counted, &errs)
		checkRowCounts(tx, counted, &errs)
		checkOrphans(tx, owned, &errs)
		return nil
	})
	if err != nil {
		return err
	}
	return errors.Join(errs...)
}

// errRolledBack ends consistentView's write transaction without a commit.
var errRolledBack = errors.New("rolled back")

// consistentView runs fn in a transaction no write commits during. bbolt's
// Tx.Check reads the freelist unlocked, so in a read transaction it races
// with a concurrent commit and reports pages that commit is moving as
// "unreachable unfreed" (go test -race caught it: a background index save
// during a Check); bbolt documents Check as safe in a writable transaction.
// A read-only handle has no writers in this process, and other processes
// cannot write while it holds its shared lock, so it reads.
func (db *DB) consistentView(fn func(tx *bolt.Tx) error) error {
	if db.readOnly {
		return db.view(fn)
	}
	err := db.writeTx(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRolledBack
	}, false)
	if errors.Is(err, errRolledBack) {
		return nil
	}
	return err
}

// checkDocuments checks every document's text, passages and vectors and
// returns which document owns each passage and what they add up to.
func checkDocuments(tx *bolt.Tx, errs *[]error) (map[uint64]string, Totals, error) {
	var counted Totals
	emb, err := getEmbedder(tx.Bucket(bucketMeta))
	if err != nil {
		return nil, counted, err
	}
	owned := map[uint64]string{}
	err = tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		var d Document
		if err := json.Unmarshal(v, &d); err != nil {
			*errs = append(*errs, fmt.Errorf("document %s: undecodable record", k))
			return nil
		}
		if tx.Bucket(bucketTexts).Get(k) == nil {
			*errs = append(*errs, fmt.Errorf("document %s: no text", k))
		}
		counted.Documents, counted.Passages, counted.Pages = counted.Documents+1, counted.Passages+len(d.Chunks), counted.Pages+d.Pages
		if err := checkRow(tx, &d); err != nil {
			*errs = append(*errs, fmt.Errorf("document %s: %w", k, err))
		}
		for i, seq := range d.Chunks {
			owned[seq] = d.ID
			if err := checkPassage(tx, &d, i, seq, emb); err != nil {
				*errs = append(*errs, fmt.Errorf("document %s passage %d: %w", k, i, err))
			}
		}
		return nil
	})
	return owned, counted, err
}

func checkPassage(tx *bolt.Tx, d *Document, i int, seq uint64, emb *EmbedderInfo) error {
	c, err := decodeChunk(seq, tx.Bucket(bucketChunks).Get(seqKey(seq)))
	if err != nil {
		return err
	}
	if c.DocID != d.ID || c.Index != i {
		return fmt.Errorf("belongs to %s:%d", c.DocID, c.Index)
	}
	v := tx.Bucket(bucketVectors).Get(seqKey(seq))
	if v == nil || (emb != nil && len(v) != 4*emb.Dimensions) {
		return errors.New("missing or malformed vector")
	}
	if sb := tx.Bucket(bucketSums); sb != nil {
		if sum := sb.Get(seqKey(seq)); len(sum) != 4 || binary.LittleEndian.Uint32(sum) != VectorSum(v) {
			return errors.New("missing or wrong vector checksum")
		}
	}
	return nil
}

// checkOrphans reports passages, vectors, paths, texts and originals that
// belong to no document.
func checkOrphans(tx *bolt.Tx, owned map[uint64]string, errs *[]error) {
	for _, b := range [][]byte{bucketChunks, bucketVectors, bucketSums} {
		if tx.Bucket(b) == nil {
			continue // no checksums in a read-only schema-1 file
		}
		tx.Bucket(b).ForEach(func(k, _ []byte) error {
			if _, ok := owned[SeqFromKey(k)]; !ok {
				*errs = append(*errs, fmt.Errorf("%s %d: not referenced by any document", b, SeqFromKey(k)))
			}
			return nil
		})
	}
	for _, b := range [][]byte{bucketPaths, bucketTexts, bucketOriginals} {
		tx.Bucket(b).ForEach(func(k, v []byte) error {
			id := k
			if string(b) == string(bucketPaths) {
				id = v
			}
			if tx.Bucket(bucketDocs).Get(id) == nil {
				*errs = append(*errs, fmt.Errorf("%s %q: no such document", b, k))
			}
			return nil
		})
	}
}
