// Package export reads and writes mcpvec's portable library format: JSON
// Lines, one header line, then each document as a document line followed by
// its passage lines (text, heading path, offsets, pages and the vector as
// base64 of little-endian float32s) and its original's lines (base64, in
// parts of at most PartSize bytes), and an end line with the count, so a
// truncated file is told from a complete one. Compression, if any, is the
// caller's (mcpvec gzips a file whose name ends in .gz).
//
// The format names no bucket and no sequence number: a newer mcpvec reads
// an older version and an older one refuses a newer version (ErrVersion).
// Writer and Reader stream: they hold one document at a time. Neither is
// safe for concurrent use.
package export

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// Format and Version identify the format in the header line.
const (
	Format  = "mcpvec-export"
	Version = 1
)

// PartSize is the most original bytes one line carries.
const PartSize = 1 << 20

// Errors a Reader returns; callers branch on them with errors.Is.
var (
	// ErrFormat means the input is not an mcpvec export or is damaged
	// (a line that does not parse, a passage out of order, no end line).
	ErrFormat = errors.New("not a valid mcpvec export")
	// ErrVersion means the export was written by a newer mcpvec.
	ErrVersion = errors.New("export written by a newer mcpvec")
)

// Header is the first line: what wrote the export and what its vectors
// are.
type Header struct {
	Format    string              `json:"format"`
	Version   int                 `json:"version"`
	Created   time.Time           `json:"created"`
	Mcpvec    string              `json:"mcpvec,omitempty"`
	Source    string              `json:"source,omitempty"`
	Embedder  *store.EmbedderInfo `json:"embedder"`
	Analyzer  string              `json:"analyzer,omitempty"`
	Documents int                 `json:"documents"`
}

// Document is one document with everything the library keeps of it.
type Document struct {
	Doc      *store.Document // with Text; Chunks (sequence numbers) is not exported
	Passages []store.Chunk
	Vectors  [][]float32
	Original []byte // nil: none kept
}

// line is every kind of line; Type tells which fields are set.
type line struct {
	Type string `json:"type"`
	// document
	*store.Document
	Text         string `json:"text,omitempty"`
	Passages     int    `json:"passages,omitempty"`
	OriginalSize int64  `json:"original_size,omitempty"`
	HasOriginal  bool   `json:"has_original,omitempty"`
	// passage: Chunk's fields and the vector
	Passage *store.Chunk `json:"passage,omitempty"`
	Vector  string       `json:"vector,omitempty"`
	// original part
	Doc  string `json:"doc,omitempty"`
	Part int    `json:"part,omitempty"`
	Data string `json:"data,omitempty"`
	// end
	Count int `json:"count,omitempty"`
}

// Writer writes an export.
type Writer struct {
	bw    *bufio.Writer
	enc   *json.Encoder
	count int
}

// NewWriter writes h (Format and Version filled in) to w and returns the
// Writer for the documents. Close writes the end line.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	x := &Writer{bw: bw, enc: json.NewEncoder(bw)}
	x.enc.SetEscapeHTML(false)
	h.Format, h.Version = Format, Version
	if err := x.enc.Encode(h); err != nil {
		return nil, fmt.Errorf("write export header: %w", err)
	}
	return x, nil
}

// Write writes one document: its line, its passages, its original.
func (x *Writer) Write(d Document) error {
	doc := *d.Doc
	doc.Chunks, doc.Text = nil, ""
	l := line{Type: "document", Document: &doc, Text: d.Doc.Text, Passages: len(d.Passages),
		OriginalSize: int64(len(d.Original)), HasOriginal: d.Original != nil}
	if err := x.enc.Encode(l); err != nil {
		return fmt.Errorf("export %s: %w", doc.ID, err)
	}
	for i := range d.Passages {
		p := d.Passages[i]
		p.Seq = 0
		if err := x.enc.Encode(line{Type: "passage", Passage: &p, Vector: encodeVector(d.Vectors[i])}); err != nil {
			return fmt.Errorf("export %s: %w", p.ID(), err)
		}
	}
	for part, off := 0, 0; off < len(d.Original); part, off = part+1, off+PartSize {
		data := d.Original[off:min(off+PartSize, len(d.Original))]
		if err := x.enc.Encode(line{Type: "original", Doc: doc.ID, Part: part, Data: base64.StdEncoding.EncodeToString(data)}); err != nil {
			return fmt.Errorf("export original of %s: %w", doc.ID, err)
		}
	}
	x.count++
	return nil
}

// Close writes the end line and flushes; it does not close the
// underlying writer.
func (x *Writer) Close() error {
	if err := x.enc.Encode(line{Type: "end", Count: x.count}); err != nil {
		return fmt.Errorf("write export end: %w", err)
	}
	return x.bw.Flush()
}

func encodeVector(v []float32) string {
	return base64.StdEncoding.EncodeToString(store.EncodeVector(v))
}
