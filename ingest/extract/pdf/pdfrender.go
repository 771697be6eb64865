package pdf

import (
	"bytes"
	"fmt"
	"image/png"
	"log/slog"
	"math"

	"github.com/klippa-app/go-pdfium/enums"
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
		dpi = int(float64(dpi) * math.Sqrt(maxOCRPixels/px))
	}
	if dpi < minOCRDPI {
		return nil, 0, fmt.Errorf("page of %.0f×%.0f points too large to render for OCR", size.Width, size.Height)
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
	if s.ocr == "" || !needsOCR(s.ocr, text) || s.ocr == OCRAuto && !s.hasScan(d, i) {
		return
	}
	img, _, err := s.renderPage(d, i, s.dpi)
	if err != nil {
		slog.Debug("render page for ocr", "page", i+1, "err", err)
		return
	}
	s.scans[i] = img
}

// hasScan reports whether page i shows an image (or form) covering at
// least a quarter of the page: a thin text layer on such a page is a
// scan, while a blank or chapter-title page of a born-digital file is not
// worth rendering. Errors count as no scan.
func (s *session) hasScan(d references.FPDF_DOCUMENT, i int) bool {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: i}}
	size, err := s.inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: d, Index: i})
	n, err2 := s.inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil || err2 != nil || !(size.Width*size.Height > 0) {
		return false
	}
	for j := range min(n.Count, maxScanObjects) {
		obj, err := s.inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: j})
		if err != nil {
			return false
		}
		typ, err := s.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj.PageObject})
		if err != nil || typ.Type != enums.FPDF_PAGEOBJ_IMAGE && typ.Type != enums.FPDF_PAGEOBJ_FORM {
			continue
		}
		b, err := s.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: obj.PageObject})
		if err == nil && float64(b.Right-b.Left)*float64(b.Top-b.Bottom)*4 >= size.Width*size.Height {
			return true
		}
	}
	return false
}
