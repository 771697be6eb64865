package extract

import (
	"bytes"
	"fmt"
	"image/png"
	"log/slog"
	"math"

	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// renderPage renders page i in grey at dpi (lowered for pages so large
// that they would pass maxOCRPixels) and encodes it as PNG for tesseract.
// It returns the PNG and the DPI used.
func (s *session) renderPage(d references.FPDF_DOCUMENT, i, dpi int) ([]byte, int, error) {
	size, err := s.inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: d, Index: i})
	if err != nil {
		return nil, 0, fmt.Errorf("page size: %w", err)
	}
	if px := size.Width * size.Height / (72 * 72) * float64(dpi*dpi); px > maxOCRPixels {
		dpi = max(int(float64(dpi)*math.Sqrt(maxOCRPixels/px)), 1)
	}
	r, err := s.inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page:        requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: i}},
		DPI:         dpi,
		ImageFormat: requests.RenderImageFormatGrayscale,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("render: %w", err)
	}
	defer r.Cleanup()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, r.Result.RenderedImage); err != nil {
		return nil, 0, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), dpi, nil
}

// scan renders page i for OCR when OCR is on and its text layer is thin.
// A page that fails to render keeps its text layer.
func (s *session) scan(d references.FPDF_DOCUMENT, i int, text string) {
	if s.ocr == "" || !needsOCR(s.ocr, text) {
		return
	}
	img, _, err := s.renderPage(d, i, s.dpi)
	if err != nil {
		slog.Debug("render page for ocr", "page", i+1, "err", err)
		return
	}
	s.scans[i] = img
}
