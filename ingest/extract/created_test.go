package extract

import (
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractCreated: the document's own creation date is read from a PDF's
// Info CreationDate, docProps/core.xml dcterms:created, ODF meta.xml
// meta:creation-date and EPUB dc:date, in UTC; a file without one, or with
// one that does not parse, has none.
func TestExtractCreated(t *testing.T) {
	want := time.Date(2019, 1, 2, 2, 4, 5, 0, time.UTC)
	const dc = `xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"`
	docx := func(created string) []byte {
		return extracttest.Zip(t, "[Content_Types].xml", extracttest.XMLHead+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
			"docProps/core.xml", extracttest.XMLHead+`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" `+dc+
				`><dc:title>Dated</dc:title><dcterms:created xsi:type="dcterms:W3CDTF" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`+created+`</dcterms:created></cp:coreProperties>`,
			"word/document.xml", extracttest.WordDocument(extracttest.WordPara("", "Body text.")))
	}
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"`
	odt := extracttest.Zip(t, "mimetype", "application/vnd.oasis.opendocument.text",
		"meta.xml", extracttest.XMLHead+`<office:document-meta `+ns+`><office:meta><meta:creation-date>2019-01-02T02:04:05</meta:creation-date></office:meta></office:document-meta>`,
		"content.xml", extracttest.XMLHead+`<office:document-content `+ns+`><office:body><office:text><text:p>Body text.</text:p></office:text></office:body></office:document-content>`)
	for _, c := range []struct {
		name string
		data []byte
		want time.Time
	}{
		{"dated.pdf", testPDF{Title: "Dated", Created: "D:20190102030405+01'00'", Pages: [][]string{{"Body text."}}}.Bytes(t), want},
		{"partial.pdf", testPDF{Title: "Dated", Created: "D:201901", Pages: [][]string{{"Body text."}}}.Bytes(t), time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"garbage.pdf", testPDF{Title: "Dated", Created: "last Tuesday", Pages: [][]string{{"Body text."}}}.Bytes(t), time.Time{}},
		{"undated.pdf", testPDF{Title: "Undated", Pages: [][]string{{"Body text."}}}.Bytes(t), time.Time{}},
		{"dated.docx", docx("2019-01-02T03:04:05+01:00"), want},
		{"garbage.docx", docx("soon"), time.Time{}},
		{"undated.docx", extracttest.DOCX(t, "Undated", "Body text."), time.Time{}},
		{"dated.odt", odt, want},
	} {
		if got := mustExtract(t, c.name, c.data).Created; !got.Equal(c.want) {
			t.Errorf("%s: created %v, want %v", c.name, got, c.want)
		}
	}
}
