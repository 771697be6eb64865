package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odfHandler reads an OpenDocument content.xml (text, presentation or
// spreadsheet). Pages: ODT splits at the soft page breaks its last layout
// recorded (breaks set in paragraph styles are not seen: styles are not
// read); ODP makes a page per draw:page with its notes after "Notes:"; ODS
// a page per table:table starting with the table's name.
type odfHandler struct {
	f      flow
	repeat int // number-columns-repeated of the current cell
	rows   int // number-rows-repeated of the current row
	sheet  bool
	head   headingText // a text:h or a slide's title frame being read
}

func (h *odfHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "h":
		lv, err := strconv.Atoi(xmlAttr(e, "outline-level"))
		if err != nil || lv < 1 {
			lv = 1
		}
		h.head.begin(e.Name.Local, lv)
	case "frame":
		if xmlAttr(e, "class") == "title" {
			h.head.begin(e.Name.Local, 1)
		}
	case "tab":
		h.f.text("\t")
	case "s":
		n, _ := strconv.Atoi(xmlAttr(e, "c"))
		h.f.text(strings.Repeat(" ", min(max(n, 1), 64)))
	case "note-body":
		h.f.text(" ")
	case "line-break":
		h.f.line()
	case "soft-page-break":
		h.f.pageBreak()
	case "page": // draw:page, a slide
		h.f.pageBreak()
	case "notes":
		h.f.para()
		h.f.text("Notes: ")
	case "table":
		h.startTable(e)
	case "table-row":
		h.f.startRow()
		h.rows, _ = strconv.Atoi(xmlAttr(e, "number-rows-repeated"))
	case "table-cell":
		h.repeat, _ = strconv.Atoi(xmlAttr(e, "number-columns-repeated"))
	case "note-citation", "annotation", "tracked-changes", "forms", "sequence-decls", "variable-decls":
		return true
	}
	return false
}

func (h *odfHandler) startTable(e xml.StartElement) {
	if h.sheet && h.f.table == 0 {
		h.f.pageBreak()
		h.head.heads = append(h.head.heads, Heading{Level: 1, Title: xmlAttr(e, "name"), Page: len(h.f.pages)})
		h.f.text(xmlAttr(e, "name"))
		h.f.para()
	}
	h.f.startTable()
}

func (h *odfHandler) end(e xml.EndElement) {
	h.head.end(e.Name.Local)
	switch e.Name.Local {
	case "p", "h":
		h.f.para()
	case "table-cell":
		h.endCell()
	case "table-row":
		h.endRow()
	case "table":
		h.f.endTable()
	case "page":
		h.f.pageBreak()
	}
}

// endCell closes a cell, repeating a cell with text up to
// maxRepeatedCells times (spreadsheets repeat empty cells to column 1024).
// The copies are charged to the budget before any is written.
func (h *odfHandler) endCell() {
	if strings.TrimSpace(h.f.cell.String()) == "" || h.repeat <= 1 {
		h.f.endCell()
		return
	}
	v := h.f.cell.String()
	h.f.endCell()
	n := min(h.repeat, maxRepeatedCells) - 1
	if !h.f.b.takeN(len(v), n) {
		return
	}
	for range n {
		h.f.write(v)
		h.f.endCell()
	}
}

// endRow closes a row, repeating a row with text up to maxRepeatedCells
// times (spreadsheets repeat empty rows to row 1048576), charged to the
// budget before any copy is written.
func (h *odfHandler) endRow() {
	line := h.f.endRow()
	n := min(h.rows, maxRepeatedCells) - 1
	if line == "" || n <= 0 || !h.f.b.takeN(len(line), n) {
		return
	}
	for range n {
		h.f.write(line)
	}
}

func (h *odfHandler) chars(s string) {
	h.head.chars(s, len(h.f.pages))
	h.f.text(s)
}

// extractODF reads content.xml of an ODT, ODP or ODS file and the title in
// meta.xml. Headings are ODT's text:h at their outline level, ODP's
// slide title frames and ODS's sheet names, at level 1.
func extractODF(a *archive, mt string) (*Document, error) {
	h := &odfHandler{f: flow{b: a.budget}, sheet: mt == TypeODS}
	if err := a.walk("content.xml", h); err != nil {
		return nil, err
	}
	return &Document{Title: partTitle(a, "meta.xml"), Pages: h.f.finish(), Headings: h.head.heads}, nil
}
