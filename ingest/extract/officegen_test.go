package extract

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// zipParts writes a ZIP with the given parts in order, stored with a fixed
// time so the bytes are reproducible.
func zipParts(tb testing.TB, parts ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: parts[i], Method: zip.Deflate,
			Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(parts[i+1])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const (
	xmlHead  = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	nsW      = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	nsA      = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	nsP      = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	nsR      = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relsHead = xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
	relType  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

func coreXML(title string) string {
	return xmlHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` +
		title + `</dc:title><dc:creator>mcpvec</dc:creator></cp:coreProperties>`
}

func wPara(style, text string) string {
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
			b.WriteString(`<w:tc>` + wPara("", c) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	return b.String() + `</w:tbl>`
}

// testDOCX is a Word document with headings (a Title, an English style id,
// a localised one known by its outline level in styles.xml, a direct
// outline level), a table, a footnote mark, deleted text, an explicit page
// break and a rendered one.
func testDOCX(tb testing.TB) []byte {
	body := wPara("Titel", "Cats at home") + wPara("Heading1", "1. Territory") +
		wPara("berschrift2", "1.1 Marking") +
		`<w:p><w:r><w:t>Cats mark their </w:t></w:r><w:del><w:r><w:delText>old </w:delText></w:r></w:del>` +
		`<w:r><w:t>range</w:t><w:tab/><w:t>daily.</w:t><w:br/><w:t>New line.</w:t></w:r></w:p>` +
		wTable([]string{"Name", "Age"}, []string{"Tom", "3"}, []string{"Felix", ""}) +
		`<w:p><w:r><w:br w:type="page"/></w:r></w:p>` +
		`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:lastRenderedPageBreak/><w:t>2. Indoors</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Second page text.</w:t></w:r></w:p>` +
		`<w:p><w:r><w:lastRenderedPageBreak/><w:t>Third page, after a rendered break.</w:t></w:r></w:p>`
	return zipParts(tb,
		"[Content_Types].xml", xmlHead+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"docProps/core.xml", coreXML("Cats at Home: A Field Guide"),
		"word/styles.xml", xmlHead+`<w:styles `+nsW+`><w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="Überschrift 2"/><w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>`,
		"word/document.xml", xmlHead+`<w:document `+nsW+`><w:body>`+body+`</w:body></w:document>`)
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

// testPPTX has two slides in presentation order (the second stored first),
// slide titles, a table and speaker notes.
func testPPTX(tb testing.TB) []byte {
	slide := func(shapes string) string {
		return xmlHead + `<p:sld ` + nsA + ` ` + nsP + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:sld>`
	}
	table := `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody>` + aPara("Breed") +
		`</a:txBody></a:tc><a:tc><a:txBody>` + aPara("Coat") + `</a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody>` +
		aPara("Siamese") + `</a:txBody></a:tc><a:tc><a:txBody>` + aPara("short") + `</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	notes := xmlHead + `<p:notes ` + nsA + ` ` + nsP + `><p:cSld><p:spTree>` +
		pShape(`<a:p><a:fld type="slidenum"><a:t>1</a:t></a:fld></a:p>`) +
		pShape(aPara("Remember to mention whiskers.")) + `</p:spTree></p:cSld></p:notes>`
	return zipParts(tb,
		"docProps/core.xml", coreXML("Cat Care"),
		"ppt/presentation.xml", xmlHead+`<p:presentation `+nsP+` `+nsR+`><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", relsHead+`<Relationship Id="rId3" Type="`+relType+`slide" Target="slides/slide1.xml"/><Relationship Id="rId7" Type="`+relType+`slide" Target="slides/slide2.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", slide(pTitle("Grooming")+table),
		"ppt/slides/slide2.xml", slide(pTitle("Cat Care 101")+pShape(aPara("Feeding"), `<a:p><a:r><a:t>twice</a:t></a:r><a:br/><a:r><a:t>a day</a:t></a:r></a:p>`)),
		"ppt/slides/_rels/slide2.xml.rels", relsHead+`<Relationship Id="rId2" Type="`+relType+`notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`,
		"ppt/notesSlides/notesSlide1.xml", notes)
}

// testXLSX has two sheets, shared and inline strings, a number, a boolean,
// a formula with its cached value and a gap between columns.
func testXLSX(tb testing.TB) []byte {
	sheet := func(rows string) string {
		return xmlHead + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`
	}
	return zipParts(tb,
		"docProps/core.xml", coreXML("Cat Budget"),
		"xl/workbook.xml", xmlHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+nsR+`><sheets><sheet name="Food" sheetId="1" r:id="rId1"/><sheet name="Vet visits" sheetId="2" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", relsHead+`<Relationship Id="rId1" Type="`+relType+`worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="`+relType+`worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>`,
		"xl/sharedStrings.xml", xmlHead+`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>Item</t></si><si><t>Cost</t></si><si><r><t>Dry </t></r><r><t>food</t></r><rPh><t>x</t></rPh></si></sst>`,
		"xl/worksheets/sheet1.xml", sheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+
			`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c></row>`+
			`<row r="3"><c r="A3" t="inlineStr"><is><t>Total</t></is></c><c r="B3"><f>SUM(B2)</f><v>12.5</v></c><c r="D3" t="b"><v>1</v></c></row>`),
		"xl/worksheets/sheet2.xml", sheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>Checkup in March</t></is></c></row>`))
}

// testRTF has a title, a font table, a colour table, a picture, escaped
// characters, \uN with fallback, \'hh, a table and a page break.
func testRTF() []byte {
	return []byte(`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times;}}{\colortbl;\red255\green0\blue0;}` +
		`{\info{\title Cats in RTF}{\author mcpvec}}{\*\generator Hand 1.0;}` + "\n" +
		`{\pard\b Whiskers\b0\par}` + "\n" +
		`Caf\'e9 na\u239?ve \{braces\} and \\backslash\line next line\par` + "\n" +
		`{\pict\pngblip 89504e470d0a1a0a}{\*\shppict junk}` +
		`\trowd\cellx1000\cellx2000 Name\cell Age\cell\row\trowd Tom\cell 3\cell\row\pard` + "\n" +
		`After the table.\page Second page{\field{\*\fldinst HYPERLINK "x"}{\fldrslt  link}}.\par}`)
}

// odfDoc wraps an OpenDocument body in content.xml and meta.xml.
func odfDoc(tb testing.TB, mime, title, body string) []byte {
	ns := `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
		`xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"`
	return zipParts(tb, "mimetype", mime,
		"meta.xml", xmlHead+`<office:document-meta `+ns+`><office:meta><dc:title>`+title+`</dc:title></office:meta></office:document-meta>`,
		"content.xml", xmlHead+`<office:document-content `+ns+`><office:body>`+body+`</office:body></office:document-content>`)
}

func odfTable(name string, rows ...string) string {
	return fmt.Sprintf(`<table:table table:name=%q>%s</table:table>`, name, strings.Join(rows, ""))
}

func odfRow(cells ...string) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(`<table:table-cell><text:p>` + c + `</text:p></table:table-cell>`)
	}
	return `<table:table-row>` + b.String() + `<table:table-cell table:number-columns-repeated="1000"/></table:table-row>`
}

func testODT(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.text", "Open Cats",
		`<office:text><text:h text:outline-level="1">Open Cats</text:h><text:h text:outline-level="2">Napping</text:h><text:p>Cats  <text:span>nap</text:span><text:s text:c="2"/>a lot.<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note></text:p>`+
			odfTable("T1", odfRow("Cat", "Naps"), odfRow("Tom", "16"))+
			`<text:p><text:soft-page-break/>Second page.<text:line-break/>Next line.</text:p><text:h text:outline-level="2">Eating</text:h><text:p>Fish.</text:p></office:text>`)
}

func testODP(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.presentation", "Open Slides",
		`<office:presentation><draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Slide one</text:p></draw:text-box></draw:frame>`+
			`<presentation:notes><draw:frame><draw:text-box><text:p>Say hello.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`+
			`<draw:page draw:name="p2"><draw:frame><draw:text-box><text:p>Slide two</text:p></draw:text-box></draw:frame></draw:page></office:presentation>`)
}

func testODS(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.spreadsheet", "Open Sheet",
		`<office:spreadsheet>`+odfTable("Cats", odfRow("Name", "Weight"), odfRow("Tom", "4.2"))+odfTable("Empty")+
			odfTable("Dogs", odfRow("Rex", "30"))+`</office:spreadsheet>`)
}

func testEPUB(tb testing.TB) []byte {
	chapter := func(title, body string) string {
		return xmlHead + `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + title + `</title></head><body>` + body + `</body></html>`
	}
	return zipParts(tb, "mimetype", "application/epub+zip",
		"META-INF/container.xml", xmlHead+`<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/content.opf", xmlHead+`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Cat Book</dc:title></metadata>`+
			`<manifest><item id="c1" href="text/ch%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/ch2.xhtml#top" media-type="application/xhtml+xml"/><item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/><item id="evil" href="../../etc/passwd"/></manifest>`+
			`<spine><itemref idref="cover"/><itemref idref="c2"/><itemref idref="c1"/><itemref idref="evil"/></spine></package>`,
		"OEBPS/cover.xhtml", chapter("Cover", `<img src="cover.png" alt=""/>`),
		"OEBPS/text/ch 1.xhtml", chapter("One", `<h1>Chapter One</h1><p>Kittens are born blind.</p>`),
		"OEBPS/text/ch2.xhtml", chapter("Two", `<h1>Chapter Two</h1><p>Old cats sleep more.</p><h2>Sleep by age</h2><table><tr><th>Age</th><th>Sleep</th></tr><tr><td>kitten</td><td>20 h</td></tr></table><p>Much more.</p>`))
}
