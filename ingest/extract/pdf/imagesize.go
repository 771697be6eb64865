package pdf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig for JPEG files
	_ "image/png"  // DecodeConfig for PNG files

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// maxImagePixels bounds an image handed to tesseract: a 600 DPI A3 scan
// is about 70 Mpx, while a few bytes can declare billions of pixels that
// tesseract would try to allocate.
const maxImagePixels = 150 << 20

// checkImage reads the dimensions in an image's header (PNG, JPEG, or a
// TIFF's first page) and fails with core.ErrTooLarge past maxImagePixels, or
// core.ErrMalformed when the header cannot be read.
func checkImage(mt string, data []byte) error {
	var w, h int
	if mt == core.TypeTIFF {
		var ok bool
		if w, h, ok = tiffSize(data); !ok {
			return fmt.Errorf("%w: unreadable TIFF header", core.ErrMalformed)
		}
	} else {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%w: image: %v", core.ErrMalformed, err)
		}
		w, h = cfg.Width, cfg.Height
	}
	if int64(w)*int64(h) > maxImagePixels {
		return fmt.Errorf("%w: image of %d×%d pixels, limit %d Mpx", core.ErrTooLarge, w, h, maxImagePixels>>20)
	}
	return nil
}

// tiffSize returns the ImageWidth and ImageLength tags of a TIFF's first
// image file directory.
func tiffSize(data []byte) (w, h int, ok bool) {
	if len(data) < 8 {
		return 0, 0, false
	}
	var bo binary.ByteOrder
	switch string(data[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0, 0, false
	}
	off := int(bo.Uint32(data[4:8]))
	if off < 8 || off+2 > len(data) {
		return 0, 0, false
	}
	n := int(bo.Uint16(data[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > len(data) {
			return 0, 0, false
		}
		v := int(bo.Uint32(data[e+8:]))
		if bo.Uint16(data[e+2:]) == 3 { // SHORT: the value is in the first two bytes
			v = int(bo.Uint16(data[e+8:]))
		}
		switch bo.Uint16(data[e:]) {
		case 256:
			w = v
		case 257:
			h = v
		}
	}
	return w, h, w > 0 && h > 0
}
