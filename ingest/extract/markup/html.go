package markup

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// skipHTML holds elements whose content is not document text.
var skipHTML = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Button: true, atom.Select: true,
	atom.Head: true, atom.Datalist: true, atom.Dialog: true,
}

// blockHTML holds elements that end a paragraph; lineHTML those that end a line.
var (
	blockHTML = map[atom.Atom]bool{
		atom.P: true, atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true,
		atom.H4: true, atom.H5: true, atom.H6: true, atom.Section: true, atom.Article: true,
		atom.Blockquote: true, atom.Pre: true, atom.Table: true, atom.Ul: true, atom.Ol: true,
		atom.Dl: true, atom.Hr: true, atom.Header: true, atom.Footer: true, atom.Main: true,
		atom.Figure: true, atom.Aside: true, atom.Address: true, atom.Details: true,
		atom.Fieldset: true, atom.Form: true,
	}
	lineHTML = map[atom.Atom]bool{
		atom.Br: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true,
		atom.Figcaption: true, atom.Caption: true, atom.Summary: true, atom.Option: true,
	}
)

// Page is what HTML reads from a page: its title, its text (not yet
// cleaned) and its h1-h6 headings, all on Page 0.
type Page struct {
	Title, Text string
	Headings    []core.Heading
}

// HTML returns the visible text of an HTML page (scripts, styles,
// navigation and other non-text elements dropped), its h1-h6 headings and
// its title: the <title> element, else the first <h1>. The text is charged
// to b; a page whose text passes it fails with b's ErrExpansion error.
func HTML(data []byte, b *core.Budget) (Page, error) {
	enc, _, _ := charset.DetermineEncoding(data, "text/html")
	if dec, derr := enc.NewDecoder().Bytes(data); derr == nil {
		data = dec
	}
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return Page{}, fmt.Errorf("%w: %w", core.ErrMalformed, err)
	}
	w := &htmlWalker{budget: b}
	if t := findElement(root, atom.Title); t != nil {
		w.title = nodeText(t)
	}
	w.walk(root)
	if err := b.Err(); err != nil {
		return Page{}, err
	}
	title := core.OneLine(w.title)
	for _, h := range w.heads {
		if title == "" && h.Level == 1 {
			title = core.OneLine(h.Title)
		}
	}
	return Page{Title: title, Text: w.b.String(), Headings: w.heads}, nil
}

// htmlLevel is the level of each heading element.
var htmlLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

type htmlWalker struct {
	budget *core.Budget // charged before each write; the walk stops once it is spent
	b      strings.Builder
	title  string
	heads  []core.Heading
	pre    int
	cells  int // cells opened so far in the current table row
}

func (w *htmlWalker) walk(n *html.Node) {
	if w.budget.Err() != nil {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipHTML[n.DataAtom] {
			return
		}
		if lv, ok := htmlLevel[n.DataAtom]; ok {
			w.heading(lv, n)
		}
		if n.DataAtom == atom.Pre {
			w.pre++
			defer func() { w.pre-- }()
		}
		if n.DataAtom == atom.Img {
			if alt := attr(n, "alt"); alt != "" {
				w.text(" " + alt + " ")
			}
		}
		w.brk(n.DataAtom, true)
		defer w.brk(n.DataAtom, false)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// text appends a text node; outside <pre> its line breaks are only spaces.
func (w *htmlWalker) text(s string) {
	if !w.budget.Take(len(s)) {
		return
	}
	if w.pre > 0 {
		w.b.WriteString(s)
		return
	}
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			w.b.WriteByte(' ')
			space = false
		}
		w.b.WriteRune(r)
	}
	if space {
		w.b.WriteByte(' ')
	}
}

// brk writes the break an element implies; core.CleanText later collapses the
// surplus spaces and blank lines.
func (w *htmlWalker) brk(a atom.Atom, open bool) {
	s := ""
	switch {
	case blockHTML[a]:
		s = "\n\n"
	case lineHTML[a] && open:
		s = "\n"
	case (a == atom.Td || a == atom.Th) && open:
		if w.cells > 0 {
			s = " | " // cells as in the other formats' tables
		}
		w.cells++
	}
	if a == atom.Tr {
		w.cells = 0
	}
	if s != "" && w.budget.Take(len(s)) {
		w.b.WriteString(s)
	}
}

// heading records an h1-h6 element; its text is charged to the budget, as
// headings nested in headings would otherwise copy the same text again.
func (w *htmlWalker) heading(level int, n *html.Node) {
	t := nodeText(n)
	if w.budget.Take(len(t)) {
		w.heads = append(w.heads, core.Heading{Level: level, Title: t})
	}
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// findElement returns the first element a in document order, or nil.
func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
