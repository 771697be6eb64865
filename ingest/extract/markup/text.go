package markup

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// DecodeText turns the bytes of a plain-text file into a UTF-8 string. It
// honours UTF-8, UTF-16 and UTF-32 byte order marks, accepts valid UTF-8, and
// otherwise decodes as Windows-1252 (a superset of Latin-1's printable
// range). It reports false for data that looks binary (NUL bytes without a
// UTF-16/32 byte order mark).
func DecodeText(data []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return string(bytes.ToValidUTF8(data[3:], []byte("\uFFFD"))), true
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		s, err := utf32.UTF32(utf32.BigEndian, utf32.UseBOM).NewDecoder().Bytes(data)
		return string(s), err == nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		s, err := xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM).NewDecoder().Bytes(data)
		return string(s), err == nil
	case bytes.IndexByte(data, 0) >= 0:
		return "", false
	case utf8.Valid(data):
		return string(data), true
	}
	s, err := charmap.Windows1252.NewDecoder().Bytes(data)
	return string(s), err == nil
}
