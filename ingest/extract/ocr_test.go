package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/internal/golden"
)

// ocrTestsEnv set to "required" (as .ci/run does) makes a missing
// tesseract a test failure instead of a skip.
const ocrTestsEnv = "MCPVEC_OCR_TESTS"

// needTesseract skips the test when tesseract is not installed, or fails
// it when OCR tests are required.
func needTesseract(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv(ocrTestsEnv) == "required" {
			tb.Fatalf("tesseract not found and %s=required: apt-get install tesseract-ocr", ocrTestsEnv)
		}
		tb.Skipf("tesseract not installed (apt install tesseract-ocr / brew install tesseract); set %s=required to fail instead", ocrTestsEnv)
	}
}

// ocrExtractor is an Extractor with OCR at dpi.
func ocrExtractor(tb testing.TB, dpi int) *Extractor {
	tb.Helper()
	opts := testOptions()
	opts.OCR, opts.OCRDPI = OCRAuto, dpi
	e := newExtractor(tb, opts)
	return e
}

// wordF1 compares the words of got with those of want (case-folded,
// split at anything but letters and digits, counted as multisets).
func wordF1(got, want string) float64 {
	words := func(s string) map[string]int {
		m := map[string]int{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			m[w]++
		}
		return m
	}
	g, w := words(got), words(want)
	var match, ng, nw int
	for k, n := range g {
		match += min(n, w[k])
		ng += n
	}
	for _, n := range w {
		nw += n
	}
	if match == 0 {
		return 0
	}
	p, r := float64(match)/float64(ng), float64(match)/float64(nw)
	return 2 * p * r / (p + r)
}

// scanFixture returns the committed scanned PDF called name, rewriting
// it from the generator with -update.
func scanFixture(t testing.TB, name string, skew float64) []byte {
	t.Helper()
	return golden.Fixture(t, filepath.Join("testdata", "scans", name), func() []byte { return scannedPDF(t, skew, 0) })
}

func scanWant() string {
	var b strings.Builder
	for _, p := range scanText {
		b.WriteString(strings.Join(p, "\n") + "\n")
	}
	return b.String()
}

// TestOCRScannedPDF reads the scanned fixtures (pages that are only
// images) through OCR at the default DPI and checks word F1 >= 0.95.
func TestOCRScannedPDF(t *testing.T) {
	needTesseract(t)
	ext := ocrExtractor(t, DefaultOCRDPI)
	for name, skew := range map[string]float64{"scan.pdf": 0, "skewed.pdf": 2.5} {
		doc, err := ext.Extract(context.Background(), name, scanFixture(t, name, skew))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := len(doc.Pages), len(scanText); got != want {
			t.Errorf("%s: %d pages, want %d", name, got, want)
		}
		if f1 := wordF1(strings.Join(doc.Pages, "\n"), scanWant()); f1 < 0.95 {
			t.Errorf("%s: word F1 = %.3f, want >= 0.95; text:\n%s", name, f1, strings.Join(doc.Pages, "\n"))
		}
	}
}

// TestOCRThinTextLayer checks the pages that carry a little real text
// over a scan (a stamped running header) are OCRed, while a born-digital
// page keeps its text layer, and that --ocr always also reads them.
func TestOCRThinTextLayer(t *testing.T) {
	needTesseract(t)
	imgs := renderPDF(t, testPDF{Pages: scanText}.Bytes(t), 200)
	data := headedImagePDF(t, imgs, "Archive scan 2026")
	for _, mode := range []OCRMode{OCRAuto, OCRAlways} {
		opts := testOptions()
		opts.OCR = mode
		ext := newExtractor(t, opts)
		doc, err := ext.Extract(context.Background(), "headed.pdf", data)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if f1 := wordF1(strings.Join(doc.Pages, "\n"), scanWant()); f1 < 0.9 {
			t.Errorf("%s: word F1 = %.3f; text:\n%s", mode, f1, strings.Join(doc.Pages, "\n"))
		}
		text, err := ext.Extract(context.Background(), "text.pdf", testPDF{Pages: [][]string{{"Born digital, kept as is."}}}.Bytes(t))
		if err != nil || text.Pages[0] != "Born digital, kept as is." {
			t.Errorf("%s: text page = %v, %v", mode, text, err)
		}
	}
}

// TestOCRImage reads PNG, JPEG and TIFF files as one-page documents.
func TestOCRImage(t *testing.T) {
	needTesseract(t)
	img := renderPDF(t, testPDF{Pages: scanText[1:]}.Bytes(t), 200)[0]
	var pngData, jpegData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegData, img, &jpeg.Options{Quality: 75}); err != nil {
		t.Fatal(err)
	}
	ext := ocrExtractor(t, 0)
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{{"page.png", TypePNG, pngData.Bytes()}, {"page.JPG", TypeJPEG, jpegData.Bytes()}, {"page.tif", TypeTIFF, grayTIFF(img)}} {
		doc, err := ext.Extract(context.Background(), tc.name, tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f1 := wordF1(doc.Pages[0], strings.Join(scanText[1], "\n")); f1 < 0.95 || doc.MediaType != tc.want {
			t.Errorf("%s: type %s, word F1 = %.3f; text:\n%s", tc.name, doc.MediaType, f1, doc.Pages[0])
		}
	}
}

// TestOCRImageBomb checks that images declaring huge sizes never reach
// tesseract.
func TestOCRImageBomb(t *testing.T) {
	needTesseract(t)
	var pngBomb bytes.Buffer
	if err := png.Encode(&pngBomb, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := pngBomb.Bytes()
	binary.BigEndian.PutUint32(b[16:], 100000) // IHDR width and height, then its CRC
	binary.BigEndian.PutUint32(b[20:], 100000)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	tiff := grayTIFF(image.NewGray(image.Rect(0, 0, 1, 1)))
	binary.LittleEndian.PutUint32(tiff[8+1+2+8:], 1<<20) // width tag's value: the first IFD entry
	binary.LittleEndian.PutUint32(tiff[8+1+2+12+8:], 1<<20)
	ext := ocrExtractor(t, 0)
	for name, data := range map[string][]byte{"bomb.png": b, "bomb.tif": tiff} {
		if _, err := ext.Extract(context.Background(), name, data); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", name, err)
		}
	}
	if _, err := ext.Extract(context.Background(), "junk.jpg", []byte("\xff\xd8\xffjunk")); !errors.Is(err, ErrMalformed) {
		t.Errorf("junk.jpg: err = %v, want ErrMalformed", err)
	}
}

// grayTIFF writes img as an uncompressed 8-bit grey baseline TIFF (the
// standard library has no TIFF encoder): a header, one strip, one IFD.
func grayTIFF(img *image.Gray) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("II")
	binary.Write(&b, le, uint16(42))
	binary.Write(&b, le, uint32(8+len(img.Pix))) // IFD after the pixels
	b.Write(img.Pix)
	tags := [][3]uint32{ // tag, type (3 short, 4 long), value
		{256, 4, uint32(w)}, {257, 4, uint32(h)}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
		{273, 4, 8}, {277, 3, 1}, {278, 4, uint32(h)}, {279, 4, uint32(len(img.Pix))},
	}
	binary.Write(&b, le, uint16(len(tags)))
	for _, tg := range tags {
		binary.Write(&b, le, uint16(tg[0]))
		binary.Write(&b, le, uint16(tg[1]))
		binary.Write(&b, le, uint32(1))
		binary.Write(&b, le, tg[2]) // shorts sit in the low bytes, little-endian
	}
	binary.Write(&b, le, uint32(0))
	return b.Bytes()
}

// TestOCRMissing checks the message for scanned files without tesseract,
// and that --ocr always refuses to start without it.
func TestOCRMissing(t *testing.T) {
	opts := testOptions()
	opts.OCR, opts.OCRCommand = OCRAuto, "mcpvec-no-such-tesseract"
	ext := newExtractor(t, opts)
	data := imagePDF(t, renderPDF(t, testPDF{Pages: scanText[1:]}.Bytes(t), 50))
	for name, data := range map[string][]byte{"scan.pdf": data, "photo.png": []byte("\x89PNG")} {
		_, err := ext.Extract(context.Background(), name, data)
		if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "apt install tesseract-ocr") {
			t.Errorf("%s: err = %v, want ErrNoText saying how to install tesseract", name, err)
		}
	}
	opts.OCR = OCRAlways
	if _, err := New(context.Background(), opts); !errors.Is(err, ErrNoOCR) {
		t.Errorf("always without tesseract: err = %v, want ErrNoOCR", err)
	}
}

// BenchmarkOCR measures OCR of the scanned fixture at several DPIs and
// reports pages/s and word F1: the measurement behind DefaultOCRDPI.
func BenchmarkOCR(b *testing.B) {
	needTesseract(b)
	for _, c := range []struct {
		skew float64
		pt   int
	}{{0, 11}, {2.5, 11}, {0, 6}, {2.5, 6}} {
		data := scannedPDF(b, c.skew, c.pt)
		for _, dpi := range []int{150, 200, 300} {
			b.Run(fmt.Sprintf("skew=%v/pt=%d/dpi=%d", c.skew, c.pt, dpi), func(b *testing.B) {
				ext := ocrExtractor(b, dpi)
				var f1 float64
				ext.Extract(context.Background(), "warm.pdf", data) // start pdfium outside the measurement
				cpu0, self0 := cputime.Children(), cputime.Process()
				start := time.Now()
				for b.Loop() {
					doc, err := ext.Extract(context.Background(), "scan.pdf", data)
					if err != nil {
						b.Fatal(err)
					}
					f1 = wordF1(strings.Join(doc.Pages, "\n"), scanWant())
				}
				b.ReportMetric(float64(b.N*len(scanText))/time.Since(start).Seconds(), "pages/s")
				b.ReportMetric(f1, "F1")
				b.ReportMetric((cputime.Children()-cpu0).Seconds()/float64(b.N*len(scanText)), "tesseract-cpu-s/page")
				b.ReportMetric((cputime.Process()-self0).Seconds()/float64(b.N*len(scanText)), "render-cpu-s/page")
			})
		}
	}
}

// TestOCRLanguageMissing checks that an uninstalled --ocr-lang is refused
// up front with the package to install.
func TestOCRLanguageMissing(t *testing.T) {
	needTesseract(t)
	opts := testOptions()
	opts.OCR, opts.OCRLang = OCRAuto, "eng+xyz"
	if _, err := New(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "tesseract-ocr-xyz") {
		t.Errorf("err = %v, want one naming tesseract-ocr-xyz", err)
	}
}

// imageText is the text of the committed image fixture, which other
// packages' end-to-end tests ingest (testdata/scans/orchard.png).
var imageText = []string{
	"The orchard behind the mill keeps forty apple trees and a",
	"quince hedge that flowers late in May. Pruning is done in",
	"February, before the sap rises, and the cuttings are burnt.",
}

// TestOCRImageFixture reads the committed PNG fixture, a page of
// imageText rendered at 200 DPI (rewritten with -update).
func TestOCRImageFixture(t *testing.T) {
	data := golden.Fixture(t, filepath.Join("testdata", "scans", "orchard.png"), func() []byte {
		var buf bytes.Buffer
		if err := png.Encode(&buf, renderPDF(t, testPDF{Pages: [][]string{imageText}}.Bytes(t), 200)[0]); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	})
	needTesseract(t)
	doc, err := ocrExtractor(t, 0).Extract(context.Background(), "orchard.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if f1 := wordF1(doc.Pages[0], strings.Join(imageText, "\n")); f1 < 0.95 || doc.MediaType != TypePNG {
		t.Errorf("type %s, word F1 = %.3f; text:\n%s", doc.MediaType, f1, doc.Pages[0])
	}
}
