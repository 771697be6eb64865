package server

import (
	"encoding/json"
	"math/bits"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/swar"
	"github.com/mcpvec/mcpvec/library"
)

// A search result is encoded twice, as structuredContent and as that JSON
// in a string (the text item), ten passages of about 500 characters each:
// encoding/json's reflection and its byte-by-byte string escaping were 3%
// of serve's CPU under load. appendSearchJSON and appendJSONString write
// the same bytes as json.Marshal (TestJSONEncodingMatchesEncodingJSON),
// passing over eight bytes at a time that need no escape.

// encodeResult is json.Marshal(v), by appendSearchJSON for a search, in a
// buffer from getBuf: the caller may give it back (putBuf) once done.
func encodeResult(v any) ([]byte, error) {
	if r, ok := v.(library.SearchResponse); ok {
		return appendSearchJSON(getBuf(searchJSONSize(r)), r), nil
	}
	return json.Marshal(v)
}

// searchJSONSize is about len(json.Marshal(r)), rounded up.
func searchJSONSize(r library.SearchResponse) int {
	n := 16
	for _, x := range r.Notes {
		n += 4 + len(x)*17/16
	}
	for _, x := range r.Results {
		n += 40 + len(x.ID) + len(x.Title) + len(x.URL) + len(x.Text)*17/16
	}
	return n
}

// appendSearchJSON appends json.Marshal(r) to dst.
func appendSearchJSON(dst []byte, r library.SearchResponse) []byte {
	dst = append(dst, `{"results":`...)
	if r.Results == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, x := range r.Results {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(append(dst, `{"id":`...), x.ID)
			dst = appendJSONString(append(dst, `,"title":`...), x.Title)
			dst = appendJSONString(append(dst, `,"url":`...), x.URL)
			dst = appendJSONString(append(dst, `,"text":`...), x.Text)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(r.Notes) > 0 {
		dst = append(dst, `,"notes":[`...)
		for i, n := range r.Notes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, n)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// jsonSafe[b]: json.Marshal writes the ASCII byte b as it is.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := byte(' '); b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// escapes marks the first byte of w that json.Marshal might not write as
// it is: a control character, `"`, `\`, <, >, & or a non-ASCII byte (it
// may mark later bytes too; 0 when there is none). Pairs of characters one
// bit apart are found with one comparison: `"` 0x22 and & 0x26, < 0x3c and
// > 0x3e.
func escapes(w uint64) uint64 {
	m := w&swar.High | swar.Less(w, 0x20) | swar.Zero(w^swar.Ones*'\\')
	return m | swar.Zero((w|swar.Ones*0x04)^swar.Ones*'&') | swar.Zero((w|swar.Ones*0x02)^swar.Ones*'>')
}

// appendJSONString appends s as json.Marshal writes a string: quoted, with
// `"`, `\` and control characters escaped, <, > and & as \u003c, \u003e
// and \u0026, U+2028 and U+2029 as \u2028 and \u2029, and each byte of
// invalid UTF-8 as \ufffd.
func appendJSONString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if m := escapes(swar.Load(s[i:])); m == 0 {
				i += 8
				continue
			} else {
				i += bits.TrailingZeros64(m) / 8
			}
		}
		size := 1
		if b := s[i]; b < utf8.RuneSelf {
			if !jsonSafe[b] {
				dst = appendEscape(append(dst, s[start:i]...), b)
				start = i + 1
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
			if r == utf8.RuneError && size == 1 {
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
				start = i + 1
			} else if r == '\u2028' || r == '\u2029' {
				dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
				start = i + size
			}
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

const hexDigits = "0123456789abcdef"

// appendEscape appends json.Marshal's escape of the ASCII byte b.
func appendEscape(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
}
