package office

import (
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// FuzzXMLParts feeds arbitrary XML to each part reader, which zip-level
// mutation rarely reaches.
func FuzzXMLParts(f *testing.F) {
	f.Add(uint8(0), []byte(`<w:document><w:body><w:tbl><w:tr><w:tc><w:p><w:t>a</w:t></w:p></w:tc></w:tr></w:tbl><w:br w:type="page"/></w:body></w:document>`))
	f.Add(uint8(1), []byte(`<p:sld><a:tbl><a:tr><a:tc><a:p><a:t>x</a:t><a:br/></a:p></a:tc></a:tr></a:tbl></p:sld>`))
	f.Add(uint8(2), []byte(`<sheetData><row><c r="ZZZ9" t="s"><v>0</v></c><c r="B1" t="b"><v>1</v></c></row></sheetData>`))
	f.Add(uint8(3), []byte(`<office:spreadsheet><table:table table:name="x"><table:table-row><table:table-cell table:number-columns-repeated="99999"><text:p>v<text:s text:c="9"/></text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`))
	f.Add(uint8(6), []byte(`<w:footnotes><w:footnote w:type="separator" w:id="-1"><w:p/></w:footnote><w:footnote w:id="1"><w:footnote><w:p><w:t>n</w:t></w:p></w:footnote></w:footnote></w:footnotes>`))
	f.Add(uint8(7), []byte(`<styleSheet><numFmts><numFmt numFmtId="164" formatCode="[h]:mm"/></numFmts><cellXfs><xf numFmtId="164"/></cellXfs></styleSheet>`))
	f.Add(uint8(4), []byte(`<package><manifest><item id="a" href="%2e%2e/x#y"/></manifest><spine><itemref idref="a"/></spine></package>`))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		fl := &core.Flow{}
		handlers := []xmlHandler{
			&docxHandler{runText: runText{f: fl}}, &drawingHandler{runText: runText{f: fl}},
			&sheetHandler{f: fl, shared: []string{"s"}}, &odfHandler{sheet: true},
			&opfHandler{opf: "OEBPS/p.opf", manifest: map[string]string{}}, &sharedStringsHandler{},
			&notesHandler{elem: "footnote", notes: map[string]string{}}, &stylesXMLHandler{custom: map[string]string{}},
		}
		_ = walkXML(data, handlers[int(kind)%len(handlers)], nil)
		for _, p := range fl.Finish() {
			if core.CleanText(p) != p {
				t.Fatalf("page not clean: %q", p)
			}
		}
	})
}
