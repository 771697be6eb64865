package extract

import "strings"

// flow collects the text of a structured document (Office, OpenDocument,
// RTF) into pages: paragraphs end with a blank line, table rows become one
// line with cells separated by " | ", and a page break starts a new page
// unless the current one is still empty (Word records a rendered break and
// an explicit one at the same place; neither may create an empty page).
// Tables nested in a cell are flattened into the cell's text.
type flow struct {
	pages []string
	page  strings.Builder
	cell  strings.Builder
	cells []string
	table int // table nesting depth
	row   bool
}

// text adds character data to the current cell or page.
func (f *flow) text(s string) {
	if f.inCell() {
		f.cell.WriteString(s)
		return
	}
	f.page.WriteString(s)
}

func (f *flow) inCell() bool { return f.row }

// line ends a line (a soft break); inside a cell it is a space.
func (f *flow) line() {
	if f.inCell() {
		f.cell.WriteByte(' ')
		return
	}
	f.page.WriteByte('\n')
}

// para ends a paragraph.
func (f *flow) para() {
	if f.inCell() {
		f.cell.WriteByte(' ')
		return
	}
	f.page.WriteString("\n\n")
}

func (f *flow) startTable() {
	f.table++
	if f.table == 1 {
		f.page.WriteString("\n\n")
	}
}

func (f *flow) endTable() {
	if f.table == 1 {
		f.endRow()
		f.page.WriteString("\n")
	}
	f.table = max(f.table-1, 0)
}

// startRow begins a table row; rows outside a table (RTF) are allowed.
func (f *flow) startRow() {
	if f.table <= 1 {
		f.endRow()
		f.row = true
	}
}

// endCell closes the current cell, keeping empty cells so columns line up.
func (f *flow) endCell() {
	if f.table > 1 || !f.row {
		f.text(" ")
		return
	}
	f.cells = append(f.cells, strings.Join(strings.Fields(f.cell.String()), " "))
	f.cell.Reset()
}

// endRow writes the row's cells as one line; trailing empty cells are
// dropped and a row without any text is not written.
func (f *flow) endRow() {
	if f.table > 1 || !f.row {
		return
	}
	if strings.TrimSpace(f.cell.String()) != "" {
		f.endCell()
	}
	f.cell.Reset()
	f.row = false
	cells := f.cells
	f.cells = nil
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) > 0 {
		f.page.WriteString(strings.Join(cells, " | ") + "\n")
	}
}

// pageBreak starts a new page unless the current one has no text yet.
func (f *flow) pageBreak() {
	if strings.TrimSpace(f.page.String()) == "" {
		return
	}
	f.pages = append(f.pages, f.page.String())
	f.page.Reset()
}

// finish returns the cleaned pages; a document always has at least one.
func (f *flow) finish() []string {
	f.endRow()
	f.pageBreak()
	if len(f.pages) == 0 {
		f.pages = []string{""}
	}
	for i, p := range f.pages {
		f.pages[i] = CleanText(p)
	}
	return f.pages
}
