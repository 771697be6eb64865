package extracttest

import (
	"strconv"
	"strings"
	"testing"
)

// DOCX writes a Word document titled title, one page per element of pages
// (explicit page breaks between them).
func DOCX(tb testing.TB, title string, pages ...string) []byte {
	var body strings.Builder
	for i, p := range pages {
		if i > 0 {
			body.WriteString(`<w:p><w:r><w:br w:type="page"/></w:r></w:p>`)
		}
		body.WriteString(paras(p, func(l string) string { return WordPara("", l) }))
	}
	return Zip(tb, "[Content_Types].xml", typesXML, "docProps/core.xml", coreXML(esc(title)),
		"word/document.xml", WordDocument(body.String()))
}

// PPTX writes a PowerPoint presentation titled title, one slide per
// element of slides.
func PPTX(tb testing.TB, title string, slides ...string) []byte {
	parts := []string{"[Content_Types].xml", typesXML, "docProps/core.xml", coreXML(esc(title))}
	var ids, rels strings.Builder
	for i, s := range slides {
		ids.WriteString(`<p:sldId id="` + strconv.Itoa(256+i) + `" r:id="rId` + n(i) + `"/>`)
		rels.WriteString(`<Relationship Id="rId` + n(i) + `" Type="` + relType + `slide" Target="slides/slide` + n(i) + `.xml"/>`)
		parts = append(parts, "ppt/slides/slide"+n(i)+".xml", pptxSlide(pShape(paras(s, aPara))))
	}
	return Zip(tb, append(parts,
		"ppt/presentation.xml", XMLHead+`<p:presentation `+nsP+` `+nsR+`><p:sldIdLst>`+ids.String()+`</p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", relsHead+rels.String()+`</Relationships>`)...)
}

// XLSX writes an Excel workbook titled title, one worksheet per element of
// sheets: its first line is the sheet's name, each other line a row.
func XLSX(tb testing.TB, title string, sheets ...string) []byte {
	parts := []string{"[Content_Types].xml", typesXML, "docProps/core.xml", coreXML(esc(title))}
	var names, rels strings.Builder
	for i, s := range sheets {
		name, rows := sheet(s)
		names.WriteString(`<sheet name="` + name + `" sheetId="` + n(i) + `" r:id="rId` + n(i) + `"/>`)
		rels.WriteString(`<Relationship Id="rId` + n(i) + `" Type="` + relType + `worksheet" Target="worksheets/sheet` + n(i) + `.xml"/>`)
		var b strings.Builder
		for r, cells := range rows {
			b.WriteString(`<row r="` + n(r) + `">`)
			for c, v := range cells {
				b.WriteString(`<c r="` + string(rune('A'+c%26)) + n(r) + `" t="inlineStr"><is><t>` + v + `</t></is></c>`)
			}
			b.WriteString(`</row>`)
		}
		parts = append(parts, "xl/worksheets/sheet"+n(i)+".xml", xlsxSheet(b.String()))
	}
	return Zip(tb, append(parts,
		"xl/workbook.xml", XMLHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+nsR+`><sheets>`+names.String()+`</sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", relsHead+rels.String()+`</Relationships>`)...)
}

// ODT writes an OpenDocument text titled title, one page per element of
// pages (soft page breaks, as LibreOffice records them).
func ODT(tb testing.TB, title string, pages ...string) []byte {
	var b strings.Builder
	for i, p := range pages {
		brk := ""
		if i > 0 {
			brk = `<text:soft-page-break/>`
		}
		b.WriteString(paras(p, func(l string) string { r := `<text:p>` + brk + l + `</text:p>`; brk = ""; return r }))
	}
	return odfDoc(tb, "application/vnd.oasis.opendocument.text", esc(title), `<office:text>`+b.String()+`</office:text>`)
}

// ODP writes an OpenDocument presentation titled title, one slide per
// element of slides.
func ODP(tb testing.TB, title string, slides ...string) []byte {
	var b strings.Builder
	for i, s := range slides {
		b.WriteString(`<draw:page draw:name="p` + n(i) + `"><draw:frame><draw:text-box>` +
			paras(s, func(l string) string { return `<text:p>` + l + `</text:p>` }) + `</draw:text-box></draw:frame></draw:page>`)
	}
	return odfDoc(tb, "application/vnd.oasis.opendocument.presentation", esc(title), `<office:presentation>`+b.String()+`</office:presentation>`)
}

// ODS writes an OpenDocument spreadsheet titled title, one table per
// element of sheets, laid out as for XLSX.
func ODS(tb testing.TB, title string, sheets ...string) []byte {
	var b strings.Builder
	for _, s := range sheets {
		name, rows := sheet(s)
		var rs []string
		for _, cells := range rows {
			rs = append(rs, odfRow(cells...))
		}
		b.WriteString(odfTable(name, rs...))
	}
	return odfDoc(tb, "application/vnd.oasis.opendocument.spreadsheet", esc(title), `<office:spreadsheet>`+b.String()+`</office:spreadsheet>`)
}

// EPUB writes an EPUB 3 book titled title, one spine document per element
// of chapters.
func EPUB(tb testing.TB, title string, chapters ...string) []byte {
	parts := []string{"mimetype", "application/epub+zip",
		"META-INF/container.xml", XMLHead + `<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`}
	var items, spine strings.Builder
	for i, c := range chapters {
		items.WriteString(`<item id="c` + n(i) + `" href="ch` + n(i) + `.xhtml" media-type="application/xhtml+xml"/>`)
		spine.WriteString(`<itemref idref="c` + n(i) + `"/>`)
		parts = append(parts, "OEBPS/ch"+n(i)+".xhtml", epubChapter("Chapter "+n(i), paras(c, func(l string) string { return `<p>` + l + `</p>` })))
	}
	return Zip(tb, append(parts, "OEBPS/content.opf", XMLHead+`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>`+
		esc(title)+`</dc:title></metadata><manifest>`+items.String()+`</manifest><spine>`+spine.String()+`</spine></package>`)...)
}

// RTF writes an RTF document titled title, one page per element of pages
// (\page between them).
func RTF(title string, pages ...string) []byte {
	var b strings.Builder
	b.WriteString(`{\rtf1\ansi\deff0{\fonttbl{\f0\froman Times;}}{\info{\title ` + rtfEsc(title) + `}}` + "\n")
	for i, p := range pages {
		if i > 0 {
			b.WriteString(`\page` + "\n")
		}
		for _, l := range strings.Split(p, "\n") {
			b.WriteString(rtfEsc(l) + `\par` + "\n")
		}
	}
	return []byte(b.String() + "}")
}

// rtfEsc escapes RTF's special characters and writes non-ASCII as \uN?.
func rtfEsc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == '{' || r == '}':
			b.WriteString(`\` + string(r))
		case r > 127:
			b.WriteString(`\u` + strconv.Itoa(int(int16(r))) + `?`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
