package extracttest

import "testing"

// DatesXLSX is a workbook with one sheet "Dates" whose numbers carry
// number formats (xl/styles.xml): each row is a label and a number whose
// cell style is, in order, a custom date format (d-mmm-yyyy), built-in
// format 14 (a date), built-in 20 (h:mm), General, a custom number format
// with a quoted "days" (not a date), and elapsed time [h]:mm:ss. Both
// date cells hold serial 17816.6, which is 11 October 1952 14:24 in the
// 1904 date system (date1904) and 10 October 1948 in the 1900 system;
// the h:mm cell holds 0.75 (18:00).
func DatesXLSX(tb testing.TB, date1904 bool) []byte {
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	rows := [][2]string{{"Born", "17816.6"}, {"Filed", "17816.6"}, {"Alarm", "0.75"}, {"Plain", "17816.6"},
		{"Span", "12.5"}, {"Elapsed", "1.5"}}
	var sheet string
	for i, r := range rows {
		sheet += `<row r="` + n(i) + `"><c r="A` + n(i) + `" t="inlineStr"><is><t>` + r[0] + `</t></is></c>` +
			`<c r="B` + n(i) + `" s="` + n(i) + `"><v>` + r[1] + `</v></c></row>`
	}
	return Zip(tb,
		"docProps/core.xml", coreXML("Dates"),
		"xl/workbook.xml", XMLHead+`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" `+nsR+`>`+pr+
			`<sheets><sheet name="Dates" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", relsHead+`<Relationship Id="rId1" Type="`+relType+`worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/styles.xml", XMLHead+`<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`+
			`<numFmts count="3"><numFmt numFmtId="164" formatCode="d\-mmm\-yyyy"/><numFmt numFmtId="165" formatCode="0.00 &quot;days&quot;"/>`+
			`<numFmt numFmtId="166" formatCode="[h]:mm:ss"/></numFmts>`+
			`<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>`+
			`<cellXfs count="7"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="20"/><xf numFmtId="0"/><xf numFmtId="165"/><xf numFmtId="166"/></cellXfs>`+
			`</styleSheet>`,
		"xl/worksheets/sheet1.xml", xlsxSheet(sheet))
}
