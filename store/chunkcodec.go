package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Passages are stored in a small binary record rather than JSON: loading the
// derived indexes reads every passage's text, and decoding JSON dominated
// that. Layout: version byte 1, then uvarints index, start, end, page start,
// page end, len(doc id), the doc id bytes, and the text to the end.
const chunkRecordV1 = 1

var errBadChunk = errors.New("malformed passage record")

func encodeChunk(c *Chunk) []byte {
	b := make([]byte, 0, 1+6*binary.MaxVarintLen64+len(c.DocID)+len(c.Text))
	b = append(b, chunkRecordV1)
	for _, n := range []int{c.Index, c.Start, c.End, c.PageStart, c.PageEnd, len(c.DocID)} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = append(b, c.DocID...)
	return append(b, c.Text...)
}

// chunkHeader parses a record's numbers and returns them with the rest
// (doc id then text).
func chunkHeader(v []byte) (f [6]int, rest []byte, err error) {
	if len(v) == 0 || v[0] != chunkRecordV1 {
		return f, nil, errBadChunk
	}
	p := v[1:]
	for i := range f {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > 1<<40 {
			return f, nil, errBadChunk
		}
		f[i], p = int(n), p[w:]
	}
	if f[5] > len(p) {
		return f, nil, errBadChunk
	}
	return f, p, nil
}

// chunkText returns the text part of a record without decoding the rest.
func chunkText(v []byte) ([]byte, error) {
	f, p, err := chunkHeader(v)
	if err != nil {
		return nil, err
	}
	return p[f[5]:], nil
}

func decodeChunk(seq uint64, v []byte) (*Chunk, error) {
	if v == nil {
		return nil, fmt.Errorf("chunk %d: %w", seq, ErrNotFound)
	}
	f, p, err := chunkHeader(v)
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", seq, err)
	}
	return &Chunk{Seq: seq, Index: f[0], Start: f[1], End: f[2], PageStart: f[3], PageEnd: f[4],
		DocID: string(p[:f[5]]), Text: string(p[f[5]:])}, nil
}
