package pdf

import (
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// FuzzImageHeader checks that reading image headers never panics.
func FuzzImageHeader(f *testing.F) {
	f.Add(uint8(0), []byte("II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x04\x00\x01\x00\x00\x00\xff\xff\xff\xff"))
	f.Add(uint8(1), []byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		_ = checkImage([]string{core.TypeTIFF, core.TypePNG, core.TypeJPEG}[int(kind)%3], data)
	})
}
