package export

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpvec/mcpvec/store"
)

// maxLine bounds one line: a document's text, or one original part in
// base64 (PartSize·4/3), whichever a file holds larger.
const maxLine = 512 << 20

// Reader reads an export written by Writer.
type Reader struct {
	sc     *bufio.Scanner
	header Header
	next   *line // a document line read ahead, or the end line
	n      int   // lines read, for error messages
	count  int
}

// NewReader reads the header from r. It returns ErrFormat for input that
// is not an export and ErrVersion for one of a newer version.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	x := &Reader{sc: sc}
	if !sc.Scan() {
		return nil, fmt.Errorf("%w: empty input %v", ErrFormat, sc.Err())
	}
	x.n++
	if err := json.Unmarshal(sc.Bytes(), &x.header); err != nil || x.header.Format != Format {
		return nil, fmt.Errorf("%w: the first line is not an mcpvec-export header", ErrFormat)
	}
	if x.header.Version > Version {
		return nil, fmt.Errorf("%w: format version %d; this mcpvec reads up to %d — upgrade mcpvec", ErrVersion, x.header.Version, Version)
	}
	if err := x.advance(); err != nil {
		return nil, err
	}
	return x, nil
}

// Header returns the export's header.
func (x *Reader) Header() Header { return x.header }

// advance reads the next line into x.next.
func (x *Reader) advance() error {
	if !x.sc.Scan() {
		if err := x.sc.Err(); err != nil {
			return fmt.Errorf("read export line %d: %w", x.n+1, err)
		}
		return fmt.Errorf("%w: it ends at line %d without its end line (truncated?)", ErrFormat, x.n)
	}
	x.n++
	var l line
	if err := json.Unmarshal(x.sc.Bytes(), &l); err != nil {
		return fmt.Errorf("%w: line %d: %w", ErrFormat, x.n, err)
	}
	x.next = &l
	return nil
}

// Next returns the next document, or io.EOF after the last one (the end
// line read and its count matched).
func (x *Reader) Next() (Document, error) {
	l := x.next
	switch {
	case l.Type == "end" && l.Count == x.count:
		return Document{}, io.EOF
	case l.Type == "end":
		return Document{}, fmt.Errorf("%w: the end line counts %d documents, %d were read", ErrFormat, l.Count, x.count)
	case l.Type != "document" || l.Document == nil || l.Document.ID == "":
		return Document{}, fmt.Errorf("%w: line %d: want a document, got %q", ErrFormat, x.n, l.Type)
	}
	d := Document{Doc: l.Document}
	d.Doc.Text, d.Doc.Chunks = l.Text, nil
	if err := x.passages(&d, l.Passages); err != nil {
		return Document{}, err
	}
	if err := x.original(&d, l.HasOriginal, l.OriginalSize); err != nil {
		return Document{}, err
	}
	x.count++
	return d, nil
}

// passages reads a document's n passage lines.
func (x *Reader) passages(d *Document, n int) error {
	if n > 0 {
		d.Passages, d.Vectors = make([]store.Chunk, 0, n), make([][]float32, 0, n)
	}
	for i := range n {
		if err := x.advance(); err != nil {
			return err
		}
		l := x.next
		if l.Type != "passage" || l.Passage == nil || l.Passage.DocID != d.Doc.ID || l.Passage.Index != i {
			return fmt.Errorf("%w: line %d: want passage %d of %s", ErrFormat, x.n, i, d.Doc.ID)
		}
		b, err := base64.StdEncoding.DecodeString(l.Vector)
		if err != nil || len(b) == 0 || len(b)%4 != 0 {
			return fmt.Errorf("%w: line %d: bad vector", ErrFormat, x.n)
		}
		d.Passages = append(d.Passages, *l.Passage)
		d.Vectors = append(d.Vectors, store.DecodeVector(nil, b))
	}
	return x.advance()
}

// original reads a document's original parts, which must add up to size.
func (x *Reader) original(d *Document, has bool, size int64) error {
	if !has {
		return nil
	}
	d.Original = make([]byte, 0, size)
	for part := 0; x.next.Type == "original"; part++ {
		l := x.next
		if l.Doc != d.Doc.ID || l.Part != part {
			return fmt.Errorf("%w: line %d: want part %d of %s's original", ErrFormat, x.n, part, d.Doc.ID)
		}
		b, err := base64.StdEncoding.DecodeString(l.Data)
		if err != nil {
			return fmt.Errorf("%w: line %d: %w", ErrFormat, x.n, err)
		}
		d.Original = append(d.Original, b...)
		if err := x.advance(); err != nil {
			return err
		}
	}
	if int64(len(d.Original)) != size {
		return fmt.Errorf("%w: %s's original has %d bytes, its line says %d", ErrFormat, d.Doc.ID, len(d.Original), size)
	}
	return nil
}
