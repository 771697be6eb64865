package extract

import "strings"

// flow collects the text of a structured document (Office, OpenDocument,
// RTF) into pages: paragraphs end with a blank line, table rows become one
// line with cells separated by " | ", and a page break starts a new page
// unless the current one is still empty (Word records a rendered break and
// an explicit one at the same place; neither may create an empty page).
// Tables nested in a cell are flattened into the cell's text. Every byte
// written is charged to b, the document's expansion budget: once it is
// spent, writes are dropped and the reader stops at b.err().
type flow struct {
	b     *budget
	pages []string
	page  strings.Builder
	cell  strings.Builder
	cells []string
	table int // table nesting depth
	row   bool
}

// text adds character data to the current cell or page.
func (f *flow) text(s string) {
	if f.b.take(len(s)) {
		f.write(s)
	}
}

// write adds s to the current cell or page without charging the budget:
// for a caller that charged a repeat at once.
func (f *flow) write(s string) {
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
		f.text(" ")
		return
	}
	f.text("\n")
}

// para ends a paragraph.
func (f *flow) para() {
	if f.inCell() {
		f.text(" ")
		return
	}
	f.text("\n\n")
}

func (f *flow) startTable() {
	f.table++
	if f.table == 1 {
		f.text("\n\n")
	}
}

func (f *flow) endTable() {
	if f.table == 1 {
		f.endRow()
		f.text("\n")
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
	f.cells = append(f.cells, oneSpace(f.cell.String()))
	f.cell.Reset()
}

// oneSpace is strings.Join(strings.Fields(s), " ") in one copy: a cell
// may hold megabytes, and the word slice would cost many times that.
func oneSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for w := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// endRow writes the row's cells as one line and returns it; trailing
// empty cells are dropped and a row without any text is not written ("").
// The cells' text was charged as it came; the separators are charged here.
func (f *flow) endRow() string {
	if f.table > 1 || !f.row {
		return ""
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
	if len(cells) == 0 || !f.b.take(3*len(cells)) {
		return ""
	}
	var line strings.Builder
	line.Grow(3 * len(cells))
	for i, c := range cells {
		if i > 0 {
			line.WriteString(" | ")
		}
		line.WriteString(c)
	}
	line.WriteByte('\n')
	f.page.WriteString(line.String())
	return line.String()
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
