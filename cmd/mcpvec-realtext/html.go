package main

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped are the elements whose text is no document's: scripts, styles
// and the navigation that Sphinx, DocBook and mandoc repeat on every page.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Nav: true, atom.Head: true,
	atom.Header: true, atom.Footer: true, atom.Noscript: true, atom.Button: true,
	atom.Form: true, atom.Select: true, atom.Svg: true,
}

// skippedClass are class names of navigation blocks (Sphinx, DocBook,
// mandoc's page head and foot).
var skippedClass = []string{"sphinxsidebar", "related", "navheader", "navfooter", "footer", "head", "foot", "headerlink", "toc-backref"}

// block elements end a paragraph; headings become Markdown headings.
var block = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Dt: true, atom.Dd: true,
	atom.Tr: true, atom.Table: true, atom.Blockquote: true, atom.Section: true,
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Br: true, atom.Hr: true,
	atom.Caption: true, atom.Figcaption: true, atom.Article: true, atom.Main: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// htmlToMarkdown returns the main text of an HTML page as Markdown:
// headings as "#" lines, paragraphs separated by blank lines, preformatted
// blocks fenced, every other character escaped so that the Markdown reads
// back as the same words. The main text is the element marked role="main"
// (Sphinx), class "manual-text" (mandoc) or else the body. Errors are the
// reader's.
func htmlToMarkdown(r io.Reader) (string, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return "", err
	}
	root := findMain(doc)
	if root == nil {
		root = doc
	}
	var w mdWriter
	w.walk(root)
	w.flush()
	return strings.TrimSpace(w.out.String()) + "\n", nil
}

// findMain returns the page's main content element, or nil.
func findMain(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && (attr(n, "role") == "main" || hasClass(n, "manual-text")) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := findMain(c); m != nil {
			return m
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

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// mdWriter gathers Markdown: para holds the running paragraph's words.
type mdWriter struct {
	out  strings.Builder
	para strings.Builder
}

func (w *mdWriter) skip(n *html.Node) bool {
	if skipped[n.DataAtom] {
		return true
	}
	for _, c := range skippedClass {
		if hasClass(n, c) {
			return true
		}
	}
	return false
}

func (w *mdWriter) walk(n *html.Node) {
	switch {
	case n.Type == html.TextNode:
		w.para.WriteString(n.Data)
		return
	case n.Type != html.ElementNode && n.Type != html.DocumentNode:
		return
	case w.skip(n):
		return
	case headingLevel[n.DataAtom] > 0:
		w.flush()
		t := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(textOf(n)), "¶#"))
		if t != "" {
			w.out.WriteString(strings.Repeat("#", headingLevel[n.DataAtom]) + " " + escape(oneLine(t)) + "\n\n")
		}
		return
	case n.DataAtom == atom.Pre:
		w.flush()
		if t := strings.Trim(textOf(n), "\n"); strings.TrimSpace(t) != "" {
			w.out.WriteString("~~~~~~~~\n" + t + "\n~~~~~~~~\n\n")
		}
		return
	}
	if block[n.DataAtom] {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if block[n.DataAtom] {
		w.flush()
	} else if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		w.para.WriteString(" ")
	}
}

// flush ends the running paragraph.
func (w *mdWriter) flush() {
	t := oneLine(w.para.String())
	w.para.Reset()
	if t != "" {
		w.out.WriteString(escape(t) + "\n\n")
	}
}

// textOf is the text under n, without skipped elements.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (skipped[n.DataAtom] || hasClass(n, "headerlink")) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// oneLine collapses white space (non-breaking spaces too) into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
}

// mdEscaper backslash-escapes the ASCII punctuation Markdown gives a
// meaning, so the words read back unchanged.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "#", `\#`, "&", `\&`, "|", `\|`, "~", `\~`)

func escape(s string) string {
	s = mdEscaper.Replace(s)
	// A line starting "-", "+" or "=" would become a list item or a
	// heading's underline; "1." or "1)" an ordered list item.
	if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == '=') {
		return `\` + s
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		s = s[:i] + `\` + s[i:]
	}
	return s
}
