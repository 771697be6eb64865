package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Passages are stored in a small binary record rather than JSON: loading the
// derived indexes reads every passage's text, and decoding JSON dominated
// that. Layout: a version byte, then uvarints index, start, end, page start,
// page end and len(doc id); version 2 adds a uvarint len(headings). Then the
// doc id bytes, in version 2 the headings (each a uvarint length and its
// bytes), and the text to the end. A passage without headings is written as
// version 1, which is what libraries made before headings hold, so either
// version reads the other's files as long as no passage has headings.
const (
	chunkRecordV1 = 1
	chunkRecordV2 = 2
)

var errBadChunk = errors.New("malformed passage record")

func encodeChunk(c *Chunk) []byte {
	var heads []byte
	for _, h := range c.Headings {
		heads = binary.AppendUvarint(heads, uint64(len(h)))
		heads = append(heads, h...)
	}
	b := make([]byte, 0, 1+7*binary.MaxVarintLen64+len(c.DocID)+len(heads)+len(c.Text))
	nums := []int{c.Index, c.Start, c.End, c.PageStart, c.PageEnd, len(c.DocID)}
	b = append(b, chunkRecordV1)
	if len(c.Headings) > 0 {
		b[0] = chunkRecordV2
		nums = append(nums, len(heads))
	}
	for _, n := range nums {
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = append(b, c.DocID...)
	b = append(b, heads...)
	return append(b, c.Text...)
}

// chunkRecord is a record split into its parts; the byte slices alias it.
type chunkRecord struct {
	f                  [6]int // index, start, end, page start, page end, len(doc id)
	docID, heads, text []byte
}

func parseChunk(v []byte) (r chunkRecord, err error) {
	if len(v) == 0 || (v[0] != chunkRecordV1 && v[0] != chunkRecordV2) {
		return r, errBadChunk
	}
	nums := make([]int, 6, 7)
	if v[0] == chunkRecordV2 {
		nums = nums[:7]
	}
	p := v[1:]
	for i := range nums {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > 1<<40 {
			return r, errBadChunk
		}
		nums[i], p = int(n), p[w:]
	}
	copy(r.f[:], nums)
	hl := 0
	if len(nums) == 7 {
		hl = nums[6]
	}
	if r.f[5] > len(p) || hl > len(p)-r.f[5] {
		return r, errBadChunk
	}
	r.docID, r.heads, r.text = p[:r.f[5]], p[r.f[5]:r.f[5]+hl], p[r.f[5]+hl:]
	return r, nil
}

// headings decodes the heading path of a record.
func (r chunkRecord) headings() ([]string, error) {
	return r.appendHeadings(nil, func(b []byte) string { return string(b) })
}

// appendHeadings appends the heading path of a record to dst, each
// heading made a string by str.
func (r chunkRecord) appendHeadings(dst []string, str func([]byte) string) ([]string, error) {
	for p := r.heads; len(p) > 0; {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return nil, errBadChunk
		}
		dst, p = append(dst, str(p[w:w+int(n)])), p[w+int(n):]
	}
	return dst, nil
}

// chunkText returns what the indexes read of a record: its text, after its
// heading path when it has one (see Chunk.IndexText), without decoding the
// rest.
func chunkText(v []byte) ([]byte, error) {
	r, err := parseChunk(v)
	if err != nil || len(r.heads) == 0 {
		return r.text, err
	}
	heads, err := r.headings()
	if err != nil {
		return nil, err
	}
	return []byte(indexText(heads, string(r.text))), nil
}

func decodeChunk(seq uint64, v []byte) (*Chunk, error) {
	if v == nil {
		return nil, fmt.Errorf("chunk %d: %w", seq, ErrNotFound)
	}
	r, err := parseChunk(v)
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", seq, err)
	}
	heads, err := r.headings()
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", seq, err)
	}
	return &Chunk{Seq: seq, Index: r.f[0], Start: r.f[1], End: r.f[2], PageStart: r.f[3], PageEnd: r.f[4],
		DocID: string(r.docID), Headings: heads, Text: string(r.text)}, nil
}

// HeadingSeparator joins a heading path into one line.
const HeadingSeparator = " › "

// indexText is the heading path on a line of its own, then the text.
func indexText(heads []string, text string) string {
	if len(heads) == 0 {
		return text
	}
	return strings.Join(heads, HeadingSeparator) + "\n\n" + text
}
