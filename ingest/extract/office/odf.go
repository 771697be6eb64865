package office

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// odfHandler reads an OpenDocument content.xml (text, presentation or
// spreadsheet). Pages: ODT splits at the soft page breaks its last layout
// recorded (breaks set in paragraph styles are not seen: styles are not
// read); ODP makes a page per draw:page with its notes after "Notes:"; ODS
// a page per table:table starting with the table's name.
type odfHandler struct {
	f      core.Flow
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
		h.f.Text("\t")
	case "s":
		n, _ := strconv.Atoi(xmlAttr(e, "c"))
		h.f.Text(strings.Repeat(" ", min(max(n, 1), 64)))
	case "note-body":
		h.f.Text(" ")
	case "line-break":
		h.f.Line()
	case "soft-page-break":
		h.f.PageBreak()
	case "page": // draw:page, a slide
		h.f.PageBreak()
	case "notes":
		h.f.Para()
		h.f.Text("Notes: ")
	case "table":
		h.startTable(e)
	case "table-row":
		h.f.StartRow()
		h.rows, _ = strconv.Atoi(xmlAttr(e, "number-rows-repeated"))
	case "table-cell":
		h.repeat, _ = strconv.Atoi(xmlAttr(e, "number-columns-repeated"))
	case "note-citation", "annotation", "tracked-changes", "forms", "sequence-decls", "variable-decls":
		return true
	}
	return false
}

func (h *odfHandler) startTable(e xml.StartElement) {
	if h.sheet && h.f.TableDepth() == 0 {
		h.f.PageBreak()
		h.head.heads = append(h.head.heads, core.Heading{Level: 1, Title: xmlAttr(e, "name"), Page: h.f.PageCount()})
		h.f.Text(xmlAttr(e, "name"))
		h.f.Para()
	}
	h.f.StartTable()
}

func (h *odfHandler) end(e xml.EndElement) {
	h.head.end(e.Name.Local)
	switch e.Name.Local {
	case "p", "h":
		h.f.Para()
	case "table-cell":
		h.endCell()
	case "table-row":
		h.endRow()
	case "table":
		h.f.EndTable()
	case "page":
		h.f.PageBreak()
	}
}

// endCell closes a cell, repeating a cell with text up to
// maxRepeatedCells times (spreadsheets repeat empty cells to column 1024).
// The copies are charged to the budget before any is written.
func (h *odfHandler) endCell() {
	if strings.TrimSpace(h.f.Cell()) == "" || h.repeat <= 1 {
		h.f.EndCell()
		return
	}
	v := h.f.Cell()
	h.f.EndCell()
	n := min(h.repeat, maxRepeatedCells) - 1
	if !h.f.Budget.TakeN(len(v), n) {
		return
	}
	for range n {
		h.f.Write(v)
		h.f.EndCell()
	}
}

// endRow closes a row, repeating a row with text up to maxRepeatedCells
// times (spreadsheets repeat empty rows to row 1048576), charged to the
// budget before any copy is written.
func (h *odfHandler) endRow() {
	line := h.f.EndRow()
	n := min(h.rows, maxRepeatedCells) - 1
	if line == "" || n <= 0 || !h.f.Budget.TakeN(len(line), n) {
		return
	}
	for range n {
		h.f.Write(line)
	}
}

func (h *odfHandler) chars(s string) {
	h.head.chars(s, h.f.PageCount())
	h.f.Text(s)
}

// extractODF reads content.xml of an ODT, ODP or ODS file and the title in
// meta.xml. Headings are ODT's text:h at their outline level, ODP's
// slide title frames and ODS's sheet names, at level 1.
func extractODF(a *archive, mt string) (*core.Document, error) {
	h := &odfHandler{f: core.Flow{Budget: a.budget}, sheet: mt == core.TypeODS}
	if err := a.walk("content.xml", h); err != nil {
		return nil, err
	}
	return &core.Document{Title: partTitle(a, "meta.xml"), Created: partDate(a, "meta.xml", "creation-date"), Pages: h.f.Finish(), Headings: h.head.heads}, nil
}
