package markup

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// markdownParser is CommonMark with the GitHub extensions whose markers
// would otherwise stay in the text: tables, task lists and strikethrough.
// goldmark's Parse is safe for concurrent use once built.
var markdownParser = goldmark.New(goldmark.WithExtensions(
	extension.Table, extension.TaskList, extension.Strikethrough,
)).Parser()

// Markdown returns the text of a Markdown document, its headings and its
// title: the first level-one heading, else the first heading of any level.
// The document is parsed by goldmark (CommonMark and GitHub tables, task
// lists and strikethrough) and its syntax tree walked: code blocks keep
// their content (it is often what a reader searches for) but lose their
// fences; front matter, link targets, reference definitions, rules, HTML
// tags and emphasis markers are dropped. Blocks are separated as in the
// source: by a blank line where the source has one, else by a line break;
// headings, fenced code, rules and tables always stand apart. Markdown is safe for
// concurrent use; the text is not yet cleaned (see CleanText).
func Markdown(src string) (title, body string, heads []core.Heading) {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	source := []byte(strings.Join(dropFrontMatter(lines), "\n"))
	w := &mdWriter{src: source}
	w.children(markdownParser.Parse(text.NewReader(source)))
	var anyHeading string
	for _, h := range w.heads {
		if title == "" && h.Level == 1 {
			title = h.Title
		}
		if anyHeading == "" {
			anyHeading = h.Title
		}
	}
	if title == "" {
		title = anyHeading
	}
	return core.OneLine(title), w.b.String(), w.heads
}

// dropFrontMatter removes a leading YAML (---) or TOML (+++) block.
func dropFrontMatter(lines []string) []string {
	if len(lines) == 0 || (lines[0] != "---" && lines[0] != "+++") {
		return lines
	}
	for i := 1; i < len(lines) && i < 200; i++ {
		if lines[i] == lines[0] || (lines[0] == "---" && lines[i] == "...") {
			return lines[i+1:]
		}
	}
	return lines
}

// mdWriter collects the text of a goldmark syntax tree. A separator
// between blocks is held back until the next block writes text, so that
// nested blocks (a list, its first item, the item's paragraph) do not add
// one each and empty blocks add none.
type mdWriter struct {
	src   []byte
	b     strings.Builder
	heads []core.Heading
	sep   string // "", " ", "\n" or "\n\n": written before the next text
}

// separate asks for at least s before the next text: a space, then a
// line break, then a blank line, each outranking the one before.
func (w *mdWriter) separate(s string) {
	if w.b.Len() > 0 && strings.Count(s, "\n")*2+len(s) > strings.Count(w.sep, "\n")*2+len(w.sep) {
		w.sep = s
	}
}

// flush writes the pending separator.
func (w *mdWriter) flush() {
	w.b.WriteString(w.sep)
	w.sep = ""
}

// put writes p after any pending separator.
func (w *mdWriter) put(p []byte) {
	if len(p) > 0 {
		w.flush()
		w.b.Write(p)
	}
}

// children writes the blocks under n in order.
func (w *mdWriter) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c)
	}
}

// standApart are the blocks set off by blank lines whatever the source
// has (goldmark does not mark a blank line before a table).
var standApart = map[ast.NodeKind]bool{
	ast.KindHeading: true, ast.KindFencedCodeBlock: true, ast.KindThematicBreak: true, east.KindTable: true,
}

// block writes one block: after a blank line where the source has one,
// else on a new line; the standApart kinds after and before a blank line.
func (w *mdWriter) block(n ast.Node) {
	apart := standApart[n.Kind()]
	switch {
	case apart || n.HasBlankPreviousLines():
		w.separate("\n\n")
	default:
		w.separate("\n")
	}
	switch n := n.(type) {
	case *ast.Heading:
		w.flush() // the separator is not part of the title
		start := w.b.Len()
		w.inline(n)
		w.heads = append(w.heads, core.Heading{Level: n.Level, Title: w.b.String()[start:]})
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.lines(n.Lines())
	case *ast.HTMLBlock:
		w.html(n)
	case *east.Table:
		w.table(n)
	case *ast.Paragraph, *ast.TextBlock:
		w.inline(n)
	default: // lists, items, quotes: their blocks
		w.children(n)
	}
	if apart {
		w.separate("\n\n")
	}
}

// lines writes the source lines of a code block as they are, without the
// last line break.
func (w *mdWriter) lines(segs *text.Segments) {
	var code []byte
	for i := range segs.Len() {
		seg := segs.At(i)
		code = append(code, seg.Value(w.src)...)
	}
	w.put(bytes.TrimSuffix(code, []byte("\n")))
}

// html writes the text between the tags of a raw HTML block; comments,
// tags and their attributes are dropped.
func (w *mdWriter) html(n *ast.HTMLBlock) {
	var raw []byte
	for i := range n.Lines().Len() {
		seg := n.Lines().At(i)
		raw = append(raw, seg.Value(w.src)...)
	}
	if n.HasClosure() {
		raw = append(raw, n.ClosureLine.Value(w.src)...)
	}
	var text []byte
	z := html.NewTokenizer(bytes.NewReader(raw))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.TextToken {
			text = append(text, z.Text()...)
		}
	}
	w.put(bytes.TrimSuffix(text, []byte("\n")))
}

// table writes a table's header row, a blank line, then one line per body
// row, cells separated by spaces.
func (w *mdWriter) table(t *east.Table) {
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			w.inline(cell)
			w.separate(" ")
		}
		if row.Kind() == east.KindTableHeader {
			w.separate("\n\n")
		} else {
			w.separate("\n")
		}
	}
}

// inline writes the text of n's inline content: link and image text
// without their targets, code spans without backticks, no raw HTML tags
// and no task-list checkboxes; line breaks are kept. Backslash escapes
// are resolved outside code spans (HTML entities are left as written).
func (w *mdWriter) inline(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			w.put(util.UnescapePunctuations(c.Segment.Value(w.src)))
			w.lineBreak(c)
		case *ast.String:
			w.put(c.Value)
		case *ast.AutoLink:
			w.put(c.Label(w.src))
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					w.put(t.Segment.Value(w.src))
				}
			}
		case *ast.RawHTML, *east.TaskCheckBox:
		default: // emphasis, links, images, strikethrough
			w.inline(c)
		}
	}
}

// lineBreak keeps the line break that ends t, if one does.
func (w *mdWriter) lineBreak(t *ast.Text) {
	if t.SoftLineBreak() || t.HardLineBreak() {
		w.put([]byte("\n"))
	}
}
