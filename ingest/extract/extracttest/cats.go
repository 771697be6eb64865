package extracttest

import (
	"testing"
)

// CatsDOCX is a Word document with headings (a Title, an English style id,
// a localised one known by its outline level in styles.xml, a direct
// outline level), a table, a footnote mark, deleted text, an explicit page
// break and a rendered one.
func CatsDOCX(tb testing.TB) []byte {
	body := WordPara("Titel", "Cats at home") + WordPara("Heading1", "1. Territory") +
		WordPara("berschrift2", "1.1 Marking") +
		`<w:p><w:r><w:t>Cats mark their </w:t></w:r><w:del><w:r><w:delText>old </w:delText></w:r></w:del>` +
		`<w:r><w:t>range</w:t><w:tab/><w:t>daily.</w:t><w:br/><w:t>New line.</w:t></w:r></w:p>` +
		wTable([]string{"Name", "Age"}, []string{"Tom", "3"}, []string{"Felix", ""}) +
		`<w:p><w:r><w:br w:type="page"/></w:r></w:p>` +
		`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:lastRenderedPageBreak/><w:t>2. Indoors</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Second page text.</w:t></w:r></w:p>` +
		`<w:p><w:r><w:lastRenderedPageBreak/><w:t>Third page, after a rendered break.</w:t></w:r></w:p>`
	return Zip(tb,
		"[Content_Types].xml", typesXML,
		"docProps/core.xml", coreXML("Cats at Home: A Field Guide"),
		"word/styles.xml", XMLHead+`<w:styles `+nsW+`><w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="Überschrift 2"/><w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>`,
		"word/document.xml", WordDocument(body))
}

// CatsPPTX has two slides in presentation order (the second stored first),
// slide titles, a table and speaker notes.
func CatsPPTX(tb testing.TB) []byte {
	table := `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody>` + aPara("Breed") +
		`</a:txBody></a:tc><a:tc><a:txBody>` + aPara("Coat") + `</a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody>` +
		aPara("Siamese") + `</a:txBody></a:tc><a:tc><a:txBody>` + aPara("short") + `</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	notes := XMLHead + `<p:notes ` + nsA + ` ` + nsP + `><p:cSld><p:spTree>` +
		pShape(`<a:p><a:fld type="slidenum"><a:t>1</a:t></a:fld></a:p>`) +
		pShape(aPara("Remember to mention whiskers.")) + `</p:spTree></p:cSld></p:notes>`
	return Zip(tb,
		"docProps/core.xml", coreXML("Cat Care"),
		"ppt/presentation.xml", XMLHead+`<p:presentation `+nsP+` `+nsR+`><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", relsHead+`<Relationship Id="rId3" Type="`+relType+`slide" Target="slides/slide1.xml"/><Relationship Id="rId7" Type="`+relType+`slide" Target="slides/slide2.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", pptxSlide(pTitle("Grooming")+table),
		"ppt/slides/slide2.xml", pptxSlide(pTitle("Cat Care 101")+pShape(aPara("Feeding"), `<a:p><a:r><a:t>twice</a:t></a:r><a:br/><a:r><a:t>a day</a:t></a:r></a:p>`)),
		"ppt/slides/_rels/slide2.xml.rels", relsHead+`<Relationship Id="rId2" Type="`+relType+`notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`,
		"ppt/notesSlides/notesSlide1.xml", notes)
}

// CatsXLSX has two sheets, shared and inline strings, a number, a boolean,
// a formula with its cached value and a gap between columns.
func CatsXLSX(tb testing.TB) []byte {
	return Zip(tb,
		"docProps/core.xml", coreXML("Cat Budget"),
		"xl/workbook.xml", XMLHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+nsR+`><sheets><sheet name="Food" sheetId="1" r:id="rId1"/><sheet name="Vet visits" sheetId="2" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", relsHead+`<Relationship Id="rId1" Type="`+relType+`worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="`+relType+`worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>`,
		"xl/sharedStrings.xml", XMLHead+`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>Item</t></si><si><t>Cost</t></si><si><r><t>Dry </t></r><r><t>food</t></r><rPh><t>x</t></rPh></si></sst>`,
		"xl/worksheets/sheet1.xml", xlsxSheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+
			`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c></row>`+
			`<row r="3"><c r="A3" t="inlineStr"><is><t>Total</t></is></c><c r="B3"><f>SUM(B2)</f><v>12.5</v></c><c r="D3" t="b"><v>1</v></c></row>`),
		"xl/worksheets/sheet2.xml", xlsxSheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>Checkup in March</t></is></c></row>`))
}

// CatsRTF has a title, a font table, a colour table, a picture, escaped
// characters, \uN with fallback, \'hh, a table and a page break.
func CatsRTF() []byte {
	return []byte(`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times;}}{\colortbl;\red255\green0\blue0;}` +
		`{\info{\title Cats in RTF}{\author mcpvec}}{\*\generator Hand 1.0;}` + "\n" +
		`{\pard\b Whiskers\b0\par}` + "\n" +
		`Caf\'e9 na\u239?ve \{braces\} and \\backslash\line next line\par` + "\n" +
		`{\pict\pngblip 89504e470d0a1a0a}{\*\shppict junk}` +
		`\trowd\cellx1000\cellx2000 Name\cell Age\cell\row\trowd Tom\cell 3\cell\row\pard` + "\n" +
		`After the table.\page Second page{\field{\*\fldinst HYPERLINK "x"}{\fldrslt  link}}.\par}`)
}

func CatsODT(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.text", "Open Cats",
		`<office:text><text:h text:outline-level="1">Open Cats</text:h><text:h text:outline-level="2">Napping</text:h><text:p>Cats  <text:span>nap</text:span><text:s text:c="2"/>a lot.<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note></text:p>`+
			odfTable("T1", odfRow("Cat", "Naps"), odfRow("Tom", "16"))+
			`<text:p><text:soft-page-break/>Second page.<text:line-break/>Next line.</text:p><text:h text:outline-level="2">Eating</text:h><text:p>Fish.</text:p></office:text>`)
}

func CatsODP(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.presentation", "Open Slides",
		`<office:presentation><draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Slide one</text:p></draw:text-box></draw:frame>`+
			`<presentation:notes><draw:frame><draw:text-box><text:p>Say hello.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`+
			`<draw:page draw:name="p2"><draw:frame><draw:text-box><text:p>Slide two</text:p></draw:text-box></draw:frame></draw:page></office:presentation>`)
}

func CatsODS(tb testing.TB) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.spreadsheet", "Open Sheet",
		`<office:spreadsheet>`+odfTable("Cats", odfRow("Name", "Weight"), odfRow("Tom", "4.2"))+odfTable("Empty")+
			odfTable("Dogs", odfRow("Rex", "30"))+`</office:spreadsheet>`)
}

func CatsEPUB(tb testing.TB) []byte {
	return Zip(tb, "mimetype", "application/epub+zip",
		"META-INF/container.xml", XMLHead+`<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/content.opf", XMLHead+`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Cat Book</dc:title></metadata>`+
			`<manifest><item id="c1" href="text/ch%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/ch2.xhtml#top" media-type="application/xhtml+xml"/><item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/><item id="evil" href="../../etc/passwd"/></manifest>`+
			`<spine><itemref idref="cover"/><itemref idref="c2"/><itemref idref="c1"/><itemref idref="evil"/></spine></package>`,
		"OEBPS/cover.xhtml", epubChapter("Cover", `<img src="cover.png" alt=""/>`),
		"OEBPS/text/ch 1.xhtml", epubChapter("One", `<h1>Chapter One</h1><p>Kittens are born blind.</p>`),
		"OEBPS/text/ch2.xhtml", epubChapter("Two", `<h1>Chapter Two</h1><p>Old cats sleep more.</p><h2>Sleep by age</h2><table><tr><th>Age</th><th>Sleep</th></tr><tr><td>kitten</td><td>20 h</td></tr></table><p>Much more.</p>`))
}
