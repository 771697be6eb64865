package store

import (
	"cmp"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// RowPage is one page of the library's rows with what all of them add up
// to, read in one transaction.
type RowPage struct {
	Rows                       []Row
	Documents, Passages, Pages int
	Bytes                      int64
	Types                      []string // the media types of all documents, sorted
	// Generation is the write generation the page was read at
	// (Totals.Generation); Version the rows' own, which a move advances
	// too (RowsVersion).
	Generation, Version uint64
}

// AllRows returns every row, in id order, with the library's totals, read
// in one transaction; ok is false for a library without rows (as
// TitlePage). Decoding rows, not records, it reads a fraction of what
// Documents does. It is safe for concurrent use; it returns ErrCorrupt
// for a damaged row.
func (db *DB) AllRows() (p RowPage, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		rows := tx.Bucket(bucketRows)
		if rows == nil || tx.Bucket(bucketTitles) == nil {
			return nil
		}
		ok = true
		if err := pageSums(tx, &p); err != nil {
			return err
		}
		p.Rows = make([]Row, 0, p.Documents)
		return rows.ForEach(func(k, v []byte) error {
			r, err := decodeRow(string(k), v)
			p.Rows = append(p.Rows, r)
			return err
		})
	})
	return p, ok, err
}

// RowsVersion returns a number that changes whenever any row does, by
// any process (it is kept in the transaction that writes the row), so a
// caller may keep what it derived from AllRows until it changes; ok is
// false for a library without rows. It reads one key; it is safe for
// concurrent use.
func (db *DB) RowsVersion() (v uint64, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketRows) == nil {
			return nil
		}
		s, err := getRowSum(tx)
		v, ok = s.Version, true
		return err
	})
	return v, ok, err
}

// TitlePage returns the rows from..from+n-1 (from 0) in title order (case
// folded, ties by id; desc reverses both) with the library's totals,
// reading only the title keys before the page and the page's own rows. ok
// is false for a library without rows (schema 3 and older, opened
// read-only): the caller lists Documents instead. It is safe for
// concurrent use; it returns ErrCorrupt for a damaged row.
func (db *DB) TitlePage(from, n int, desc bool) (p RowPage, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		titles, rows := tx.Bucket(bucketTitles), tx.Bucket(bucketRows)
		if titles == nil || rows == nil {
			return nil
		}
		ok = true
		if err := pageSums(tx, &p); err != nil {
			return err
		}
		c := titles.Cursor()
		first, next := c.First, c.Next
		if desc {
			first, next = c.Last, c.Prev
		}
		k, _ := first()
		for i := 0; k != nil && i < from; i++ {
			k, _ = next()
		}
		for ; k != nil && len(p.Rows) < n; k, _ = next() {
			id := k[slices.Index(k, 0)+1:]
			r, err := decodeRow(string(id), rows.Get(id))
			if err != nil {
				return err
			}
			p.Rows = append(p.Rows, r)
		}
		return nil
	})
	return p, ok, err
}

// pageSums sets p's totals, media types and generation.
func pageSums(tx *bolt.Tx, p *RowPage) error {
	t, _, err := getTotals(tx)
	if err != nil {
		return err
	}
	s, err := getRowSum(tx)
	if err != nil {
		return err
	}
	p.Documents, p.Passages, p.Pages, p.Bytes, p.Generation, p.Version = t.Documents, t.Passages, t.Pages, s.Bytes, t.Generation, s.Version
	for typ := range s.Types {
		p.Types = append(p.Types, typ)
	}
	slices.SortFunc(p.Types, cmp.Compare)
	return nil
}
