package extracttest

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// Amplification bombs: small files whose references expand to far more
// text than they hold (issue 35). They return an error instead of taking a
// testing.TB so that cmd/mcpvec-reliability can write them too; the bytes
// are deterministic.

// Bomb is one amplification bomb file.
type Bomb struct {
	Name string // its file name, whose extension says the format
	Data []byte
}

// Bombs writes issue 35's bombs: the red team's XLSX (50,000 cells of one
// 1.4 MB shared string), an ODS row of 256 KiB repeated a million times
// and an EPUB listing one 512 KiB chapter 20,000 times.
func Bombs() ([]Bomb, error) {
	var out []Bomb
	for _, b := range []struct {
		name string
		make func() ([]byte, error)
	}{
		{"bomb.xlsx", func() ([]byte, error) { return XLSXBomb(50000, 1400<<10) }},
		{"bomb.ods", func() ([]byte, error) { return ODSBomb(1000000, 256<<10) }},
		{"bomb.epub", func() ([]byte, error) { return EPUBBomb(20000, 512<<10) }},
	} {
		data, err := b.make()
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", b.name, err)
		}
		out = append(out, Bomb{b.name, data})
	}
	return out, nil
}

// XLSXBomb writes a workbook whose one shared string, of about textBytes
// bytes of words, is referenced by each of cells cells (one per row): the
// red team's file was 50,000 cells and 1.4 MB, about 70 GB of text.
func XLSXBomb(cells, textBytes int) ([]byte, error) {
	var rows strings.Builder
	for i := range cells {
		r := strconv.Itoa(i + 1)
		rows.WriteString(`<row r="` + r + `"><c r="A` + r + `" t="s"><v>0</v></c></row>`)
	}
	return zipParts("[Content_Types].xml", typesXML,
		"xl/workbook.xml", XMLHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+nsR+
			`><sheets><sheet name="bomb" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", relsHead+`<Relationship Id="rId1" Type="`+relType+`worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/sharedStrings.xml", XMLHead+`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`+
			Words(textBytes, 1)+`</t></si></sst>`,
		"xl/worksheets/sheet1.xml", xlsxSheet(rows.String()))
}

// ODSBomb writes a spreadsheet with one row of a cell of about textBytes
// bytes of words, the row marked number-rows-repeated="rows" and the cell
// number-columns-repeated="1024".
func ODSBomb(rows, textBytes int) ([]byte, error) {
	row := `<table:table-row table:number-rows-repeated="` + strconv.Itoa(rows) + `">` +
		`<table:table-cell table:number-columns-repeated="1024"><text:p>` + Words(textBytes, 2) +
		`</text:p></table:table-cell></table:table-row>`
	return zipParts(odfParts("application/vnd.oasis.opendocument.spreadsheet", "bomb",
		`<office:spreadsheet>`+odfTable("bomb", row)+`</office:spreadsheet>`)...)
}

// EPUBBomb writes a book whose spine lists its one chapter, of about
// textBytes bytes of words and HTML entities, repeats times.
func EPUBBomb(repeats, textBytes int) ([]byte, error) {
	body := strings.ReplaceAll(Words(textBytes, 3), " ", " &amp; &#x263A; ")
	spine := strings.Repeat(`<itemref idref="c1"/>`, repeats)
	return zipParts("mimetype", "application/epub+zip",
		"META-INF/container.xml", XMLHead+`<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/ch1.xhtml", epubChapter("Bomb", "<p>"+body+"</p>"),
		"OEBPS/content.opf", XMLHead+`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>bomb</dc:title></metadata>`+
			`<manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest><spine>`+spine+`</spine></package>`)
}

// Words returns about n bytes of space-separated words drawn from a small
// vocabulary with a fixed seed: text that deflates about 4:1, like prose,
// so a bomb made of it passes the ZIP ratio checks.
func Words(n int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	syll := []string{"ka", "lo", "mi", "ne", "su", "ra", "to", "vi", "ze", "pu", "do", "ge"}
	var b strings.Builder
	for b.Len() < n {
		for range 2 + rng.Intn(3) {
			b.WriteString(syll[rng.Intn(len(syll))])
		}
		b.WriteByte(' ')
	}
	return b.String()
}
