package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Totals counts what the library holds and numbers its writes. It is one
// small record in the meta bucket, updated in the same transaction as every
// write that adds or removes a document, so it is exact whenever the store
// is: reading it costs one key where counting walks the whole file.
type Totals struct {
	// Generation grows with every transaction that adds or removes
	// passages or replaces vectors (by one for a document write). A
	// derived index that records the generation it reflects knows, by
	// comparing it with this one, whether it missed a write.
	Generation uint64 `json:"generation"`
	Documents  int    `json:"documents"`
	Passages   int    `json:"passages"`
	Pages      int    `json:"pages"`
}

var totalsKey = []byte("totals")

// getTotals reads the totals record; ok is false in a library written
// before it existed (schema 2 and older, opened read-only).
func getTotals(tx *bolt.Tx) (t Totals, ok bool, err error) {
	v := tx.Bucket(bucketMeta).Get(totalsKey)
	if v == nil {
		return t, false, nil
	}
	if err := json.Unmarshal(v, &t); err != nil {
		return t, false, fmt.Errorf("decode totals record: %w: %w", ErrCorrupt, err)
	}
	return t, true, nil
}

// addTotals adds documents, passages and pages to the totals record.
func addTotals(tx *bolt.Tx, documents, passages, pages int) error {
	t, _, err := getTotals(tx)
	if err != nil {
		return err
	}
	t.Documents += documents
	t.Passages += passages
	t.Pages += pages
	return putJSON(tx.Bucket(bucketMeta), totalsKey, t)
}

// bumpGeneration numbers a write that changed passages or vectors and
// records the new generation in res (when not nil).
func bumpGeneration(tx *bolt.Tx, res *PutResult) error {
	t, _, err := getTotals(tx)
	if err != nil {
		return err
	}
	t.Generation++
	if res != nil {
		res.Generation = t.Generation
	}
	return putJSON(tx.Bucket(bucketMeta), totalsKey, t)
}

// fillTotals counts the documents, passages and pages: the upgrade to
// schema 3, which added the totals record. Callers hold a write
// transaction.
func fillTotals(tx *bolt.Tx) error {
	t := Totals{Generation: 1}
	err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		var d struct {
			Pages  int      `json:"pages"`
			Chunks []uint64 `json:"chunks"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("document %s: %w: %w", k, ErrCorrupt, err)
		}
		t.Documents++
		t.Passages += len(d.Chunks)
		t.Pages += d.Pages
		return nil
	})
	if err != nil {
		return fmt.Errorf("count documents: %w", err)
	}
	return putJSON(tx.Bucket(bucketMeta), totalsKey, t)
}

// Totals returns the library's totals; ok is false for a library written
// before they existed, opened read-only (a writable open adds them). It is
// safe for concurrent use; it returns ErrCorrupt for a damaged record.
func (db *DB) Totals() (t Totals, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		t, ok, err = getTotals(tx)
		return err
	})
	return t, ok, err
}

// Generation returns the library's write generation as of this
// transaction (Totals.Generation); ok is false when the library predates
// it.
func (t *Tx) Generation() (gen uint64, ok bool) {
	tot, ok, err := getTotals(t.tx)
	return tot.Generation, ok && err == nil
}

// FirstDocuments returns up to n documents (without text) in id order, the
// first that Documents would list, reading only those.
func (db *DB) FirstDocuments(n int) ([]*Document, error) { return db.listDocuments(n) }

// checkTotals reports totals that disagree with what the documents hold.
func checkTotals(tx *bolt.Tx, counted Totals, errs *[]error) {
	t, ok, err := getTotals(tx)
	switch {
	case err != nil:
		*errs = append(*errs, err)
	case !ok:
	case t.Documents != counted.Documents || t.Passages != counted.Passages || t.Pages != counted.Pages:
		*errs = append(*errs, fmt.Errorf("totals record says %d documents, %d passages, %d pages; the documents hold %d, %d, %d",
			t.Documents, t.Passages, t.Pages, counted.Documents, counted.Passages, counted.Pages))
	}
}
