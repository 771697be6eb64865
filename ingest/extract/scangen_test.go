package extract

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// scanText is the text of the scanned fixtures, one slice per page.
var scanText = [][]string{{
	"Domestic cats spend most of the day asleep, waking at dusk",
	"and dawn to hunt. A healthy adult cat sleeps between twelve",
	"and sixteen hours, and older cats often sleep even longer.",
	"",
	"Cats mark their territory with scent glands on the cheeks",
	"and paws. A cat rubbing against your legs is claiming you",
	"as part of its range, which is a compliment of sorts.",
	"",
	"Whiskers are roughly as wide as the cat's body and help it",
	"judge whether it can fit through a gap in the dark.",
}, {
	"Feeding: adult cats need a diet rich in animal protein.",
	"Most veterinarians recommend two measured meals each day",
	"rather than a bowl that is always full, to avoid obesity.",
	"Fresh water should be available at all times; many cats",
	"prefer running water from a fountain over a still bowl.",
}}

var (
	renderOnce sync.Once
	renderP    pdfium.Pool
	renderErr  error
)

// renderPool returns a pdfium pool of one instance for rendering test
// pages, the compiled module cached as the shared extractor's is.
func renderPool(tb testing.TB) pdfium.Pool {
	tb.Helper()
	renderOnce.Do(func() {
		cache, err := wazero.NewCompilationCacheWithDir(testCacheDir())
		if err != nil {
			cache = wazero.NewCompilationCache()
		}
		rc := wazero.NewRuntimeConfig().WithCompilationCache(cache).
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
		renderP, renderErr = webassembly.Init(webassembly.Config{MaxTotal: 1, MaxIdle: 1, RuntimeConfig: rc})
	})
	if renderErr != nil {
		tb.Fatal(renderErr)
	}
	return renderP
}

// renderPDF renders every page of a PDF to grey images with pdfium.
func renderPDF(tb testing.TB, data []byte, dpi int) []*image.Gray {
	tb.Helper()
	inst, err := renderPool(tb).GetInstanceWithContext(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		tb.Fatal(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		tb.Fatal(err)
	}
	var pages []*image.Gray
	for i := range n.PageCount {
		r, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{DPI: dpi, ImageFormat: requests.RenderImageFormatGrayscale,
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i}}})
		if err != nil {
			tb.Fatal(err)
		}
		src := r.Result.RenderedImage.(*image.Gray)
		g := image.NewGray(src.Bounds())
		draw.Draw(g, g.Bounds(), src, src.Bounds().Min, draw.Src) // the wasm buffer goes away with Cleanup
		r.Cleanup()
		pages = append(pages, g)
	}
	return pages
}

// rotate turns img by deg degrees about its centre (nearest neighbour),
// filling the corners with white, like a page fed askew into a scanner.
func rotate(img *image.Gray, deg float64) *image.Gray {
	b := img.Bounds()
	out := image.NewGray(b)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	for y := range b.Dy() {
		for x := range b.Dx() {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := int(cos*dx+sin*dy+cx), int(-sin*dx+cos*dy+cy)
			c := color.Gray{Y: 255}
			if image.Pt(sx, sy).In(b) {
				c = img.GrayAt(sx, sy)
			}
			out.SetGray(x, y, c)
		}
	}
	return out
}

// imagePDF writes a PDF whose pages are only images (no text layer), one
// per image, each filling a US Letter page: what a scanner produces.
func imagePDF(tb testing.TB, pages []*image.Gray) []byte { return headedImagePDF(tb, pages, "") }

// headedImagePDF is imagePDF with a line of real text, header, at the top
// of each page, as scanning software that stamps a running header makes.
func headedImagePDF(tb testing.TB, pages []*image.Gray, header string) []byte {
	tb.Helper()
	w := &pdfWriter{}
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 6+3*i)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	w.obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	w.obj(4, "<< /Producer (mcpvec scan generator) >>")
	w.obj(5, "null")
	for i, img := range pages {
		n := 6 + 3*i
		w.obj(n, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 %d 0 R >> /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", n+2, n+1))
		content := "q 612 0 0 792 0 0 cm /Im1 Do Q\n"
		if header != "" {
			content += fmt.Sprintf("BT /F1 8 Tf 72 780 Td %s Tj ET\n", pdfLiteral(tb, header))
		}
		w.stream(n+1, []byte(content))
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		zw.Write(img.Pix)
		zw.Close()
		w.start(n + 2)
		fmt.Fprintf(&w.buf, "<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n",
			img.Rect.Dx(), img.Rect.Dy(), z.Len())
		w.buf.Write(z.Bytes())
		w.buf.WriteString("\nendstream\nendobj\n")
	}
	return w.finish(5 + 3*len(pages))
}

// scannedPDF renders the scan text in fontSize points (0 = 11) at 300 DPI
// and wraps the images in a PDF without text layer; skew rotates each
// page by that many degrees.
func scannedPDF(tb testing.TB, skew float64, fontSize int) []byte {
	imgs := renderPDF(tb, testPDF{Pages: scanText, FontSize: fontSize}.Bytes(tb), 300)
	if skew != 0 {
		for i := range imgs {
			imgs[i] = rotate(imgs[i], skew)
		}
	}
	return imagePDF(tb, imgs)
}
