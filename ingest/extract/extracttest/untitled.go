package extracttest

import "testing"

// UntitledDOCX, UntitledODT and UntitledPPTX have no metadata title (an
// empty dc:title) but a first heading, or first slide title, heading;
// a line of body text precedes it and a second heading follows.
func UntitledDOCX(tb testing.TB, heading string) []byte {
	body := WordPara("", "Draft, do not circulate.") + WordPara("Heading1", esc(heading)) +
		WordPara("", "Body text.") + WordPara("Heading2", "Details")
	return Zip(tb, "[Content_Types].xml", typesXML, "docProps/core.xml", coreXML(""),
		"word/document.xml", WordDocument(body))
}

// UntitledODT: see UntitledDOCX.
func UntitledODT(tb testing.TB, heading string) []byte {
	return odfDoc(tb, "application/vnd.oasis.opendocument.text", "", `<office:text><text:p>Draft, do not circulate.</text:p>`+
		`<text:h text:outline-level="1">`+esc(heading)+`</text:h><text:p>Body text.</text:p>`+
		`<text:h text:outline-level="2">Details</text:h></office:text>`)
}

// UntitledPPTX: see UntitledDOCX; the heading is the first slide's title.
func UntitledPPTX(tb testing.TB, heading string) []byte {
	return Zip(tb, "[Content_Types].xml", typesXML, "docProps/core.xml", coreXML(""),
		"ppt/presentation.xml", XMLHead+`<p:presentation `+nsP+` `+nsR+`><p:sldIdLst><p:sldId id="256" r:id="rId1"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", relsHead+`<Relationship Id="rId1" Type="`+relType+`slide" Target="slides/slide1.xml"/>`+
			`<Relationship Id="rId2" Type="`+relType+`slide" Target="slides/slide2.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", pptxSlide(pShape(aPara("Draft, do not circulate."))+pTitle(esc(heading))),
		"ppt/slides/slide2.xml", pptxSlide(pTitle("Details")+pShape(aPara("Body text."))))
}
