package extracttest

import "testing"

// NotesDOCX is a Word document of two pages with what Word keeps outside
// word/document.xml: a footnote (and Word's separator notes), an endnote
// and a comment, each cited on page 1, and a header and footer, the
// header's text referenced both as the default and the first-page header.
func NotesDOCX(tb testing.TB) []byte {
	ref := func(elem, id string) string { return `<w:r><w:` + elem + ` w:id="` + id + `"/></w:r>` }
	note := func(elem, id, text string) string {
		return `<w:` + elem + ` w:id="` + id + `">` + WordPara("", text) + `</w:` + elem + `>`
	}
	body := WordPara("Heading1", "Whiskers") +
		`<w:p><w:r><w:t>Cats use whiskers to measure gaps.</w:t></w:r>` + ref("footnoteReference", "1") +
		`<w:r><w:t> They also sense air currents.</w:t></w:r>` + ref("endnoteReference", "1") + `</w:p>` +
		`<w:p><w:commentRangeStart w:id="0"/><w:r><w:t>Kittens are born with whiskers.</w:t></w:r><w:commentRangeEnd w:id="0"/>` +
		ref("commentReference", "0") + `</w:p>` +
		`<w:p><w:r><w:br w:type="page"/></w:r></w:p>` + WordPara("", "Second page about tails.") +
		`<w:sectPr><w:headerReference w:type="default" r:id="rId11"/><w:headerReference w:type="first" r:id="rId12"/>` +
		`<w:footerReference w:type="default" r:id="rId13"/></w:sectPr>`
	notesPart := func(root, elem, notes string) string {
		return XMLHead + `<w:` + root + ` ` + nsW + `>` + notes + `</w:` + root + `>`
	}
	margin := func(root, text string) string {
		return XMLHead + `<w:` + root + ` ` + nsW + `>` + WordPara("", text) + `</w:` + root + `>`
	}
	rel := func(id, typ, target string) string {
		return `<Relationship Id="` + id + `" Type="` + relType + typ + `" Target="` + target + `"/>`
	}
	return Zip(tb, "[Content_Types].xml", typesXML, "docProps/core.xml", coreXML("Whisker Notes"),
		"word/document.xml", XMLHead+`<w:document `+nsW+` `+nsR+`><w:body>`+body+`</w:body></w:document>`,
		"word/_rels/document.xml.rels", relsHead+rel("rId8", "footnotes", "footnotes.xml")+rel("rId9", "endnotes", "endnotes.xml")+
			rel("rId10", "comments", "comments.xml")+rel("rId11", "header", "header1.xml")+rel("rId12", "header", "header2.xml")+
			rel("rId13", "footer", "footer1.xml")+`</Relationships>`,
		"word/footnotes.xml", notesPart("footnotes", "footnote",
			`<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>`+
				`<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:t>cont</w:t></w:r></w:p></w:footnote>`+
				note("footnote", "1", "Measured with a ruler by the vet.")),
		"word/endnotes.xml", notesPart("endnotes", "endnote", note("endnote", "1", "See the 2019 whisker survey.")),
		"word/comments.xml", notesPart("comments", "comment", note("comment", "0", "Check this claim with Tom.")),
		"word/header1.xml", margin("hdr", "Feline Facts Quarterly"),
		"word/header2.xml", margin("hdr", "Feline Facts Quarterly"),
		"word/footer1.xml", margin("ftr", "Confidential draft"))
}
