package extracttest

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

const (
	nsW      = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	nsA      = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	nsP      = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	nsR      = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relsHead = XMLHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
	relType  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
	typesXML = XMLHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`
)

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func coreXML(title string) string {
	return XMLHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` +
		title + `</dc:title><dc:creator>mcpvec</dc:creator></cp:coreProperties>`
}

// WordDocument wraps a w:body's XML in word/document.xml.
func WordDocument(body string) string {
	return XMLHead + `<w:document ` + nsW + `><w:body>` + body + `</w:body></w:document>`
}

// WordPara is a Word paragraph of style ("" for none) holding text, which
// is XML as it stands.
func WordPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func wTable(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl>`)
	for _, r := range rows {
		b.WriteString(`<w:tr>`)
		for _, c := range r {
			b.WriteString(`<w:tc>` + WordPara("", c) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	return b.String() + `</w:tbl>`
}

func aPara(text string) string {
	return `<a:p><a:r><a:t>` + text + `</a:t></a:r></a:p>`
}

func pShape(paras ...string) string {
	return `<p:sp><p:txBody>` + strings.Join(paras, "") + `</p:txBody></p:sp>`
}

// pTitle is a slide's title placeholder shape.
func pTitle(text string) string {
	return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody>` +
		aPara(text) + `</p:txBody></p:sp>`
}

func pptxSlide(shapes string) string {
	return XMLHead + `<p:sld ` + nsA + ` ` + nsP + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:sld>`
}

func xlsxSheet(rows string) string {
	return XMLHead + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`
}

// odfDoc wraps an OpenDocument body in content.xml and meta.xml.
func odfDoc(tb testing.TB, mime, title, body string) []byte {
	return Zip(tb, odfParts(mime, title, body)...)
}

// odfParts are the parts of an OpenDocument file: mimetype, meta.xml and
// content.xml around body.
func odfParts(mime, title, body string) []string {
	ns := `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
		`xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"`
	return []string{"mimetype", mime,
		"meta.xml", XMLHead + `<office:document-meta ` + ns + `><office:meta><dc:title>` + title + `</dc:title></office:meta></office:document-meta>`,
		"content.xml", XMLHead + `<office:document-content ` + ns + `><office:body>` + body + `</office:body></office:document-content>`}
}

func odfTable(name string, rows ...string) string {
	return fmt.Sprintf(`<table:table table:name="%s">%s</table:table>`, name, strings.Join(rows, ""))
}

func odfRow(cells ...string) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(`<table:table-cell><text:p>` + c + `</text:p></table:table-cell>`)
	}
	return `<table:table-row>` + b.String() + `<table:table-cell table:number-columns-repeated="1000"/></table:table-row>`
}

func epubChapter(title, body string) string {
	return XMLHead + `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + title + `</title></head><body>` + body + `</body></html>`
}

// paras maps each line of unit, escaped, through wrap and joins the results.
func paras(unit string, wrap func(string) string) string {
	var b strings.Builder
	for _, l := range strings.Split(unit, "\n") {
		b.WriteString(wrap(esc(l)))
	}
	return b.String()
}

// sheet splits a sheet's text into its name and its rows of escaped cells.
func sheet(unit string) (name string, rows [][]string) {
	name, rest, _ := strings.Cut(unit, "\n")
	for _, l := range strings.Split(rest, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var cells []string
		for _, c := range strings.Split(l, " | ") {
			cells = append(cells, esc(c))
		}
		rows = append(rows, cells)
	}
	return esc(name), rows
}

func n(i int) string { return strconv.Itoa(i + 1) }
