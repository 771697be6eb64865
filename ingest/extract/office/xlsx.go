package office

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// maxSheetColumn bounds how many empty cells are written to keep a sparse
// row's columns aligned; cells further right are appended after the gap.
const maxSheetColumn = 256

// sharedStringsHandler reads xl/sharedStrings.xml: one string per si, the
// concatenation of its t elements (phonetic runs, rPh, skipped).
type sharedStringsHandler struct {
	list []string
	cur  strings.Builder
	inT  bool
}

func (h *sharedStringsHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "si":
		h.cur.Reset()
	case "t":
		h.inT = true
	case "rPh":
		return true
	}
	return false
}

func (h *sharedStringsHandler) end(e xml.EndElement) {
	switch e.Name.Local {
	case "si":
		h.list = append(h.list, h.cur.String())
	case "t":
		h.inT = false
	}
}

func (h *sharedStringsHandler) chars(s string) {
	if h.inT {
		h.cur.WriteString(s)
	}
}

// sheetHandler reads one worksheet: each row becomes a line of its cells'
// values separated by " | ".
type sheetHandler struct {
	f       *core.Flow
	shared  []string
	styles  *cellStyles
	style   string // the current cell's s attribute
	typ     string // the current cell's t attribute
	col     int    // the current cell's column (0-based), from its r attribute
	next    int    // the column after the last written cell
	inValue bool
	value   strings.Builder
}

func (h *sheetHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "row":
		h.f.StartRow()
		h.next = 0
	case "c":
		h.typ, h.col = xmlAttr(e, "t"), cellColumn(xmlAttr(e, "r"), h.next)
		h.style = xmlAttr(e, "s")
		h.value.Reset()
	case "v", "t":
		h.inValue = true
	case "f", "rPh", "extLst":
		return true // formulas: the cached value in v is what a reader sees
	}
	return false
}

func (h *sheetHandler) end(e xml.EndElement) {
	switch e.Name.Local {
	case "row":
		h.f.EndRow()
	case "v", "t":
		h.inValue = false
	case "c":
		h.cell()
	}
}

func (h *sheetHandler) chars(s string) {
	if h.inValue {
		h.value.WriteString(s)
	}
}

// cell writes the current cell, padding skipped columns with empty cells.
func (h *sheetHandler) cell() {
	v := h.value.String()
	switch h.typ {
	case "s":
		if i, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && i >= 0 && i < len(h.shared) {
			v = h.shared[i]
		}
	case "b":
		v = map[string]string{"1": "TRUE", "0": "FALSE"}[strings.TrimSpace(v)]
	case "", "n":
		v = h.styles.format(h.style, v)
	}
	if strings.TrimSpace(v) == "" {
		return
	}
	for ; h.next < h.col && h.next < maxSheetColumn; h.next++ {
		h.f.EndCell()
	}
	h.f.Text(v)
	h.f.EndCell()
	h.next = max(h.col, h.next) + 1
}

// cellColumn returns the 0-based column of a reference such as "C7", or
// def when there is none.
func cellColumn(ref string, def int) int {
	col := 0
	for _, r := range ref {
		if r < 'A' || r > 'Z' {
			break
		}
		col = col*26 + int(r-'A'+1)
		if col > 1<<14 {
			return def
		}
	}
	if col == 0 {
		return def
	}
	return col - 1
}

// extractXLSX returns one page per worksheet in workbook order, each
// starting with the sheet's name. Cells show their cached values; numbers
// in a date or time format are written as dates (see formatSerial).
func extractXLSX(a *archive) (*core.Document, error) {
	sheets, names, err := orderedParts(a, "xl/workbook.xml", "sheet")
	if err != nil {
		return nil, err
	}
	var shared []string
	if a.has("xl/sharedStrings.xml") {
		h := &sharedStringsHandler{}
		if err := a.walk("xl/sharedStrings.xml", h); err != nil {
			return nil, fmt.Errorf("shared strings: %w", err)
		}
		shared = h.list
	}
	styles := readCellStyles(a, "xl/workbook.xml")
	doc := &core.Document{Title: coreTitle(a), Created: coreCreated(a)}
	for i, s := range sheets {
		f := &core.Flow{Budget: a.budget}
		f.Text(names[i])
		f.Para()
		if err := a.walk(s, &sheetHandler{f: f, shared: shared, styles: styles}); err != nil {
			return nil, fmt.Errorf("sheet %q: %w", names[i], err)
		}
		core.AddUnit(doc, strings.Join(f.Finish(), "\n\n"), core.Heading{Level: 1, Title: names[i]})
	}
	return core.Paged(doc), nil
}
