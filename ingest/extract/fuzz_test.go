package extract

import (
	"context"
	"errors"
	"testing"
	"unicode"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/markup"
	"github.com/mcpvec/mcpvec/ingest/extract/office"
)

var fuzzNames = []string{"f.pdf", "f.txt", "f.md", "f.html", "f", "f.docx", "f.pptx", "f.xlsx", "f.odt", "f.ods", "f.epub", "f.rtf"}

// FuzzExtract checks that Extract never panics and that what it returns is
// either a sentinel error or a clean, non-empty document.
func FuzzExtract(f *testing.F) {
	f.Add(uint8(0), testPDF{Title: "T", Pages: [][]string{{"hello (world)"}, {"page two"}}}.Bytes(f))
	f.Add(uint8(0), testPDF{Pages: [][]string{{"secret"}}, Password: "pw"}.Bytes(f))
	f.Add(uint8(0), []byte("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj trailer<</Root 1 0 R>>"))
	f.Add(uint8(1), []byte("plain\r\ntext ﬁ para-\ngraph"))
	f.Add(uint8(2), []byte("# T\n\n**b** [l](u) `c`\n```\ncode\n"))
	f.Add(uint8(3), []byte("<title>x</title><p>a<br>b<script>s</script>"))
	f.Add(uint8(4), []byte("<!DOCTYPE html><h1>h</h1>"))
	f.Add(uint8(5), extracttest.CatsDOCX(f))
	f.Add(uint8(6), extracttest.CatsPPTX(f))
	f.Add(uint8(7), extracttest.CatsXLSX(f))
	f.Add(uint8(8), extracttest.CatsODT(f))
	f.Add(uint8(9), extracttest.CatsODS(f))
	f.Add(uint8(10), extracttest.CatsEPUB(f))
	f.Add(uint8(11), extracttest.CatsRTF())
	ext := mustExtractor(f)
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("input over 64 KiB")
		}
		name := fuzzNames[int(kind)%len(fuzzNames)]
		doc, err := ext.Extract(context.Background(), name, data)
		if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("%s: error wraps no sentinel: %v", name, err)
		}
		if len(doc.Pages) == 0 || doc.MediaType == "" {
			t.Fatalf("%s: empty document %+v", name, doc)
		}
		for i, p := range doc.Pages {
			if CleanText(p) != p {
				t.Fatalf("%s: page %d is not clean: %q", name, i+1, p)
			}
		}
	})
}

// FuzzCleanText checks that CleanText is idempotent and leaves no control
// characters but newlines.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"a-\nb", "ﬁ\r\n\n\n x\u00ad\ny", "\f\x00\u2029", "é\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CleanText(s)
		if CleanText(c) != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, c, CleanText(c))
		}
		for _, r := range c {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("control %U left in %q", r, c)
			}
		}
	})
}

// FuzzStructured runs the Office, OpenDocument, EPUB and RTF parsers
// without their recover, so a panic fails the fuzz run; it needs no
// pdfium and so explores much faster than FuzzExtract.
func FuzzStructured(f *testing.F) {
	types := []string{TypeDOCX, TypePPTX, TypeXLSX, TypeODT, TypeODP, TypeODS, TypeEPUB, TypeRTF}
	for i, data := range [][]byte{extracttest.CatsDOCX(f), extracttest.CatsPPTX(f), extracttest.CatsXLSX(f), extracttest.CatsODT(f), extracttest.CatsODP(f), extracttest.CatsODS(f), extracttest.CatsEPUB(f), extracttest.CatsRTF()} {
		f.Add(uint8(i), data)
	}
	f.Add(uint8(0), extracttest.NotesDOCX(f))
	f.Add(uint8(2), extracttest.DatesXLSX(f, true))
	f.Add(uint8(0), extracttest.OLE("EncryptedPackage"))
	f.Add(uint8(0), extracttest.OLE("WordDocument"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		mt, b := types[int(kind)%len(types)], core.NewBudget(len(data))
		parse := office.Parse
		if mt == TypeRTF {
			parse = func(_ string, data []byte, b *core.Budget) (*Document, error) { return markup.RTF(data, b) }
		}
		doc, err := parse(mt, data, b)
		if err == nil && len(doc.Pages) == 0 {
			t.Fatal("document without pages")
		}
	})
}
