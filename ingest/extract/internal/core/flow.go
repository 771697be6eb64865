package core

import "strings"

// Flow collects the text of a structured document (Office, OpenDocument,
// RTF) into pages: paragraphs end with a blank line, table rows become one
// line with cells separated by " | ", and a page break starts a new page
// unless the current one is still empty (Word records a rendered break and
// an explicit one at the same place; neither may create an empty page).
// Tables nested in a cell are flattened into the cell's text. Every byte
// written is charged to Budget, the document's expansion budget (nil:
// unlimited): once it is spent, writes are dropped and the reader stops at
// Budget.Err(). A Flow is not safe for concurrent use.
type Flow struct {
	Budget *Budget
	pages  []string
	page   strings.Builder
	cell   strings.Builder
	cells  []string
	table  int // table nesting depth
	row    bool
}

// Text adds character data to the current cell or page.
func (f *Flow) Text(s string) {
	if f.Budget.Take(len(s)) {
		f.Write(s)
	}
}

// Write adds s to the current cell or page without charging the budget:
// for a caller that charged a repeat at once.
func (f *Flow) Write(s string) {
	if f.InCell() {
		f.cell.WriteString(s)
		return
	}
	f.page.WriteString(s)
}

// PageCount is the number of pages finished so far: the index of the page
// being written.
func (f *Flow) PageCount() int { return len(f.pages) }

// TableDepth is how deeply tables are nested at this point (0: outside).
func (f *Flow) TableDepth() int { return f.table }

// Cell returns the text of the open cell so far.
func (f *Flow) Cell() string { return f.cell.String() }

// InCell reports whether a table row is open (text goes to its cell).
func (f *Flow) InCell() bool { return f.row }

// Line ends a line (a soft break); inside a cell it is a space.
func (f *Flow) Line() {
	if f.InCell() {
		f.Text(" ")
		return
	}
	f.Text("\n")
}

// Para ends a paragraph.
func (f *Flow) Para() {
	if f.InCell() {
		f.Text(" ")
		return
	}
	f.Text("\n\n")
}

func (f *Flow) StartTable() {
	f.table++
	if f.table == 1 {
		f.Text("\n\n")
	}
}

func (f *Flow) EndTable() {
	if f.table == 1 {
		f.EndRow()
		f.Text("\n")
	}
	f.table = max(f.table-1, 0)
}

// StartRow begins a table row; rows outside a table (RTF) are allowed.
func (f *Flow) StartRow() {
	if f.table <= 1 {
		f.EndRow()
		f.row = true
	}
}

// EndCell closes the current cell, keeping empty cells so columns line up.
func (f *Flow) EndCell() {
	if f.table > 1 || !f.row {
		f.Text(" ")
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

// EndRow writes the row's cells as one line and returns it; trailing
// empty cells are dropped and a row without any text is not written ("").
// The cells' text was charged as it came; the separators are charged here.
func (f *Flow) EndRow() string {
	if f.table > 1 || !f.row {
		return ""
	}
	if strings.TrimSpace(f.cell.String()) != "" {
		f.EndCell()
	}
	f.cell.Reset()
	f.row = false
	cells := f.cells
	f.cells = nil
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 || !f.Budget.Take(3*len(cells)) {
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

// PageBreak starts a new page unless the current one has no text yet.
func (f *Flow) PageBreak() {
	if strings.TrimSpace(f.page.String()) == "" {
		return
	}
	f.pages = append(f.pages, f.page.String())
	f.page.Reset()
}

// Finish returns the cleaned pages; a document always has at least one.
func (f *Flow) Finish() []string {
	f.EndRow()
	f.PageBreak()
	if len(f.pages) == 0 {
		f.pages = []string{""}
	}
	for i, p := range f.pages {
		f.pages[i] = CleanText(p)
	}
	return f.pages
}
