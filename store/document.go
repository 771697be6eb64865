package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// Document is one ingested file.
type Document struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	SourcePath string `json:"source_path"`
	SourceURL  string `json:"source_url,omitempty"`
	MediaType  string `json:"media_type"`
	SHA256     string `json:"sha256"`
	Size       int64  `json:"size"`
	// ModTime is the file's modification time when it was read; zero for
	// documents stored before it was recorded. Sync compares it with Size
	// to skip hashing unchanged files.
	ModTime time.Time `json:"mod_time,omitzero"`
	// Created is the document's own creation date as its format records
	// it (a PDF's CreationDate, an Office file's dcterms:created); zero
	// when it records none and for documents stored before it was recorded.
	Created    time.Time `json:"created,omitzero"`
	Pages      int       `json:"pages"`
	IngestedAt time.Time `json:"ingested_at"`
	// PageStarts holds the byte offset in Text at which each page starts.
	PageStarts []int `json:"page_starts"`
	// Chunks holds the passages' sequence numbers in passage order.
	Chunks []uint64 `json:"chunks"`
	// Text is the full extracted text. It is stored apart from the record and
	// filled only by Document, not by Documents.
	Text string `json:"-"`
}

// PageOf returns the 1-based page holding byte offset off of Text.
func (d *Document) PageOf(off int) int {
	if len(d.PageStarts) == 0 {
		return 1
	}
	return sort.Search(len(d.PageStarts), func(i int) bool { return d.PageStarts[i] > off })
}

// PageText returns the text of pages first..last (1-based, inclusive).
func (d *Document) PageText(first, last int) string {
	if len(d.PageStarts) == 0 {
		return d.Text
	}
	first = max(first, 1)
	last = min(last, len(d.PageStarts))
	if first > last {
		return ""
	}
	end := len(d.Text)
	if last < len(d.PageStarts) {
		end = d.PageStarts[last]
	}
	return d.Text[d.PageStarts[first-1]:end]
}

// Chunk is one passage of a document.
type Chunk struct {
	Seq       uint64 `json:"-"`
	DocID     string `json:"doc"`
	Index     int    `json:"index"`
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
	// Headings is the passage's heading path (chapter, section, ...),
	// outermost first; nil when the document has no headings there.
	Headings []string `json:"headings,omitempty"`
}

// IndexText is what the search indexes read of the passage: its heading
// path on a line of its own, then its text; just the text when it has no
// headings. Tx.ChunkTexts yields the same.
func (c *Chunk) IndexText() string { return indexText(c.Headings, c.Text) }

// ID is the passage's stable public id, "<document id>:<index>".
func (c *Chunk) ID() string { return c.DocID + ":" + strconv.Itoa(c.Index) }

// ParsePassageID splits "<document id>:<index>". ok is false for a
// document id or garbage.
func ParsePassageID(id string) (docID string, index int, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return id[:i], n, true
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// SeqFromKey decodes a chunks/vectors key.
func SeqFromKey(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// EncodeVector encodes a vector as stored: little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector decodes a stored vector into dst (grown as needed).
func DecodeVector(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if littleEndian && n > 0 {
		// The stored bytes are the in-memory layout: one memmove.
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*n), b)
		return dst
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

func getDoc(tx *bolt.Tx, id string) (*Document, error) {
	v := tx.Bucket(bucketDocs).Get([]byte(id))
	if v == nil {
		return nil, fmt.Errorf("document %s: %w", id, ErrNotFound)
	}
	var d Document
	if err := json.Unmarshal(v, &d); err != nil {
		return nil, fmt.Errorf("decode document %s: %w", id, err)
	}
	return &d, nil
}

// Document returns a document with its full text, or ErrNotFound.
func (db *DB) Document(id string) (*Document, error) {
	var d *Document
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		if d, err = getDoc(tx, id); err != nil {
			return err
		}
		d.Text = string(tx.Bucket(bucketTexts).Get([]byte(id)))
		return nil
	})
	return d, err
}

// DocumentInfo returns a document's record without its text, or ErrNotFound.
// It is the cheap lookup for the query path.
func (db *DB) DocumentInfo(id string) (*Document, error) {
	var d *Document
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		d, err = getDoc(tx, id)
		return err
	})
	return d, err
}

// DocumentByPath returns the document ingested from path (without text), or
// ErrNotFound.
func (db *DB) DocumentByPath(path string) (*Document, error) {
	var d *Document
	err := db.view(func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketPaths).Get([]byte(path))
		if id == nil {
			return fmt.Errorf("path %s: %w", path, ErrNotFound)
		}
		var err error
		d, err = getDoc(tx, string(id))
		return err
	})
	return d, err
}

// Documents lists every document (without text), ordered by id.
func (db *DB) Documents() ([]*Document, error) { return db.listDocuments(-1) }

// listDocuments lists the first n documents (n < 0: all) in id order.
// Listing them all, it has the kernel read the bucket's leaves ahead
// (hintLeaves) and decodes the records on every CPU: at a million passages
// (250,000 records) `mcpvec ls` took 8.1 s from a cold page cache and 3.5
// s warm, and takes 3.8 and 2.8 s so.
func (db *DB) listDocuments(n int) ([]*Document, error) {
	var out []*Document
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		if n < 0 {
			defer hintLeaves(tx, b)()
			var keys, vals [][]byte
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				keys, vals = append(keys, k), append(vals, v)
			}
			var err error
			out, err = db.decodeDocuments(keys, vals)
			return err
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil && len(out) < n; k, v = c.Next() {
			var d Document
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("decode document %s: %w", k, err)
			}
			out = append(out, &d)
		}
		return nil
	})
	return out, err
}

// decodeDocuments decodes the document records vals (slices of the map,
// read inside the caller's transaction) under keys, split among the CPUs in
// runs of keys; each worker guards its own reads of the map (guardPath) and
// stops at its first bad record, so the error returned is the first bad
// record's in key order.
func (db *DB) decodeDocuments(keys, vals [][]byte) ([]*Document, error) {
	out := make([]*Document, len(vals))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(vals)/2048))
	per := (len(vals) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(vals))
		wg.Go(func() {
			errs[w] = guardPath(db.path, func() error {
				for i := lo; i < hi; i++ {
					d := new(Document)
					if err := json.Unmarshal(vals[i], d); err != nil {
						return fmt.Errorf("decode document %s: %w", keys[i], err)
					}
					out[i] = d
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Original returns the original bytes of a document, or ErrNotFound.
func (db *DB) Original(id string) ([]byte, error) {
	return db.valueCopy(bucketOriginals, id, "original of "+id)
}

// Chunks returns the passages with the given sequence numbers, in the same
// order; a missing one is an error matching ErrNotFound.
func (db *DB) Chunks(seqs []uint64) ([]*Chunk, error) {
	out := make([]*Chunk, len(seqs))
	err := db.view(func(tx *bolt.Tx) error {
		return eachChunkRecord(tx, seqs, func(i int, v []byte) (bool, error) {
			c, err := decodeChunk(seqs[i], v)
			out[i] = c
			return err == nil, err
		})
	})
	return out, err
}

// Passage returns a passage by its public id ("<doc>:<index>"), or ErrNotFound.
func (db *DB) Passage(id string) (*Chunk, error) {
	docID, idx, ok := ParsePassageID(id)
	if !ok {
		return nil, fmt.Errorf("passage %q: %w", id, ErrNotFound)
	}
	var c *Chunk
	err := db.view(func(tx *bolt.Tx) error {
		d, err := getDoc(tx, docID)
		if err != nil {
			return err
		}
		if idx >= len(d.Chunks) {
			return fmt.Errorf("passage %q: %w", id, ErrNotFound)
		}
		c, err = decodeChunk(d.Chunks[idx], tx.Bucket(bucketChunks).Get(seqKey(d.Chunks[idx])))
		return err
	})
	return c, err
}

// Stats counts what the library holds.
type Stats struct {
	Documents, Chunks, Vectors int
	Pages                      int
	FileBytes                  int64
	// Generation is the write generation the counts are of (read with
	// them; 0 for a library without a totals record).
	Generation uint64
}

// Counts is Stats read from the totals record instead of a walk over every
// record: documents, pages and passages as the record keeps them, vectors
// as the vector checksums (bucket vsums, 12 bytes a vector) number them,
// and the file's size. ok is false for a library without a totals record
// (schema below 3, opened read-only): Stats counts it. At a million
// passages Counts walks the 14k pages of vsums (63 ms warm) where Stats
// reads every page of the chunks and vectors, 1.8 s.
func (db *DB) Counts() (s Stats, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		t, has, err := getTotals(tx)
		sums := tx.Bucket(bucketSums)
		if err != nil || !has || sums == nil {
			return err
		}
		s = Stats{Documents: t.Documents, Chunks: t.Passages, Pages: t.Pages, FileBytes: tx.Size(), Generation: t.Generation}
		s.Vectors, ok = sums.Stats().KeyN, true
		return nil
	})
	return s, ok, err
}

// Stats counts documents, passages and vectors.
func (db *DB) Stats() (Stats, error) {
	var s Stats
	err := db.view(func(tx *bolt.Tx) error {
		s.Chunks = tx.Bucket(bucketChunks).Stats().KeyN
		s.Vectors = tx.Bucket(bucketVectors).Stats().KeyN
		s.FileBytes = tx.Size()
		if t, ok, err := getTotals(tx); err == nil && ok {
			s.Generation = t.Generation
		}
		return tx.Bucket(bucketDocs).ForEach(func(_, v []byte) error {
			var d struct {
				Pages int `json:"pages"`
			}
			if err := json.Unmarshal(v, &d); err != nil {
				return err
			}
			s.Documents++
			s.Pages += d.Pages
			return nil
		})
	})
	return s, err
}
