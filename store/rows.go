package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Row is what a listing of the library shows of one document: its record
// without the passage and page offsets, which a page listing 250,000
// documents would otherwise decode to count them.
type Row struct {
	ID, Title, SourcePath, SourceURL, MediaType string
	Size                                        int64
	Pages, Passages                             int
	IngestedAt                                  time.Time
}

// RowOf is doc's row.
func RowOf(doc *Document) Row {
	return Row{ID: doc.ID, Title: doc.Title, SourcePath: doc.SourcePath, SourceURL: doc.SourceURL, MediaType: doc.MediaType,
		Size: doc.Size, Pages: doc.Pages, Passages: len(doc.Chunks), IngestedAt: doc.IngestedAt}
}

// Since schema 4 every document also has a row in bucketRows (under its
// id, encoded by encodeRow) and a key in bucketTitles (its title
// lowercased, a zero byte, its id; no value), both written in the
// transaction that writes or removes the document, and the meta record
// rowSumKey keeps the bytes and media types over all rows. A page of the
// library in title order then reads its own rows only.
var (
	bucketRows   = []byte("rows")
	bucketTitles = []byte("titles")
	rowSumKey    = []byte("rowsum")
)

// rowSum is what the rows add up to besides Totals.
type rowSum struct {
	// Version grows with every row written or removed, moves included
	// (which leave the write generation as it was).
	Version uint64         `json:"version"`
	Bytes   int64          `json:"bytes"`
	Types   map[string]int `json:"types"` // documents per media type
}

// titleKey is doc's key in bucketTitles: sorted as a listing in title
// order sorts, case folded, ties by id.
func titleKey(title, id string) []byte {
	return append(append([]byte(strings.ToLower(title)), 0), id...)
}

// putRow writes doc's row and title key and counts it in the row sum.
func putRow(tx *bolt.Tx, doc *Document) error {
	r := RowOf(doc)
	if err := tx.Bucket(bucketRows).Put([]byte(r.ID), encodeRow(&r)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketTitles).Put(titleKey(r.Title, r.ID), nil); err != nil {
		return err
	}
	return addRowSum(tx, &r, 1)
}

// deleteRow removes doc's row and title key and its share of the row sum.
func deleteRow(tx *bolt.Tx, doc *Document) error {
	r := RowOf(doc)
	if err := tx.Bucket(bucketRows).Delete([]byte(r.ID)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketTitles).Delete(titleKey(r.Title, r.ID)); err != nil {
		return err
	}
	return addRowSum(tx, &r, -1)
}

func addRowSum(tx *bolt.Tx, r *Row, n int) error {
	s, err := getRowSum(tx)
	if err != nil {
		return err
	}
	s.Version++
	s.Bytes += int64(n) * r.Size
	s.Types[r.MediaType] += n
	if s.Types[r.MediaType] <= 0 {
		delete(s.Types, r.MediaType)
	}
	return putJSON(tx.Bucket(bucketMeta), rowSumKey, s)
}

func getRowSum(tx *bolt.Tx) (rowSum, error) {
	s := rowSum{}
	if v := tx.Bucket(bucketMeta).Get(rowSumKey); v != nil {
		if err := json.Unmarshal(v, &s); err != nil {
			return s, fmt.Errorf("decode row sum: %w: %w", ErrCorrupt, err)
		}
	}
	if s.Types == nil {
		s.Types = map[string]int{}
	}
	return s, nil
}

// fillRows writes every document's row, title key and the row sum: the
// upgrade to schema 4. Callers hold a write transaction.
func fillRows(tx *bolt.Tx) error {
	for _, b := range [][]byte{bucketRows, bucketTitles} {
		if err := tx.DeleteBucket(b); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
	}
	tx.Bucket(bucketRows).FillPercent = 0.9 // written in key order
	old, err := getRowSum(tx)               // an earlier version, kept: it only grows
	if err != nil {
		old = rowSum{}
	}
	s := rowSum{Version: old.Version + 1, Types: map[string]int{}}
	var titles [][]byte
	err = tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		var d Document
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("document %s: %w: %w", k, ErrCorrupt, err)
		}
		r := RowOf(&d)
		s.Bytes += r.Size
		s.Types[r.MediaType]++
		titles = append(titles, titleKey(r.Title, r.ID))
		return tx.Bucket(bucketRows).Put([]byte(r.ID), encodeRow(&r))
	})
	if err != nil {
		return err
	}
	// In key order: bbolt splits a bucket's nodes only at commit, and
	// 100,000 keys put at random places in one node took 6 s of moves.
	slices.SortFunc(titles, bytes.Compare)
	tb := tx.Bucket(bucketTitles)
	tb.FillPercent = 0.9
	for _, k := range titles {
		if err := tb.Put(k, nil); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bucketMeta), rowSumKey, s)
}

// encodeRow is r as uvarints and length-prefixed strings, in Row's order.
func encodeRow(r *Row) []byte {
	b := make([]byte, 0, 48+len(r.Title)+len(r.SourcePath)+len(r.SourceURL)+len(r.MediaType))
	for _, s := range []string{r.Title, r.SourcePath, r.SourceURL, r.MediaType} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, r.Size)
	b = binary.AppendUvarint(b, uint64(r.Pages))
	b = binary.AppendUvarint(b, uint64(r.Passages))
	at := int64(zeroTime)
	if !r.IngestedAt.IsZero() {
		at = r.IngestedAt.UnixNano()
	}
	return binary.AppendVarint(b, at)
}

// zeroTime stands for a zero IngestedAt, which has no UnixNano.
const zeroTime = math.MinInt64

// decodeRow decodes the row of id encoded by encodeRow.
func decodeRow(id string, v []byte) (Row, error) {
	r := Row{ID: id}
	bad := fmt.Errorf("row %s: %w: truncated", id, ErrCorrupt)
	for _, s := range []*string{&r.Title, &r.SourcePath, &r.SourceURL, &r.MediaType} {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return r, bad
		}
		*s, v = string(v[k:k+int(n)]), v[k+int(n):]
	}
	var nums [4]int64
	for i := range nums {
		var k int
		if i == 0 || i == 3 {
			nums[i], k = binary.Varint(v)
		} else {
			var u uint64
			u, k = binary.Uvarint(v)
			nums[i] = int64(u)
		}
		if k <= 0 {
			return r, bad
		}
		v = v[k:]
	}
	r.Size, r.Pages, r.Passages = nums[0], int(nums[1]), int(nums[2])
	if nums[3] != zeroTime {
		r.IngestedAt = time.Unix(0, nums[3]).UTC()
	}
	if len(v) == 0 {
		return r, nil
	}
	return r, fmt.Errorf("row %s: %w: %d bytes left over", id, ErrCorrupt, len(v))
}

// checkRow reports a row that is missing or says other than d, and a
// missing title key; nothing for a library without rows (read-only,
// schema 3 and older).
func checkRow(tx *bolt.Tx, d *Document) error {
	rows, titles := tx.Bucket(bucketRows), tx.Bucket(bucketTitles)
	if rows == nil || titles == nil {
		return nil
	}
	v := rows.Get([]byte(d.ID))
	if v == nil {
		return errors.New("no listing row")
	}
	got, err := decodeRow(d.ID, v)
	if err != nil {
		return err
	}
	want := RowOf(d)
	if !got.IngestedAt.Equal(want.IngestedAt) {
		return errors.New("listing row has another ingest time")
	}
	got.IngestedAt = want.IngestedAt
	if got != want {
		return fmt.Errorf("listing row says %+v", got)
	}
	if k, _ := titles.Cursor().Seek(titleKey(d.Title, d.ID)); !bytes.Equal(k, titleKey(d.Title, d.ID)) {
		return errors.New("no title key")
	}
	return nil
}

// checkRowCounts reports rows and title keys beyond the documents', and a
// row sum that disagrees with the rows.
func checkRowCounts(tx *bolt.Tx, counted Totals, errs *[]error) {
	rows, titles := tx.Bucket(bucketRows), tx.Bucket(bucketTitles)
	if rows == nil || titles == nil {
		return
	}
	if n, m := rows.Stats().KeyN, titles.Stats().KeyN; n != counted.Documents || m != counted.Documents {
		*errs = append(*errs, fmt.Errorf("%d listing rows and %d title keys for %d documents", n, m, counted.Documents))
	}
	s, err := getRowSum(tx)
	if err != nil {
		*errs = append(*errs, err)
		return
	}
	want := rowSum{Types: map[string]int{}}
	rows.ForEach(func(k, v []byte) error {
		if r, err := decodeRow(string(k), v); err == nil {
			want.Bytes += r.Size
			want.Types[r.MediaType]++
		}
		return nil
	})
	if want.Version = s.Version; !maps.Equal(s.Types, want.Types) || s.Bytes != want.Bytes {
		*errs = append(*errs, fmt.Errorf("row sum says %d bytes, types %v; the rows hold %d, %v", s.Bytes, s.Types, want.Bytes, want.Types))
	}
}
