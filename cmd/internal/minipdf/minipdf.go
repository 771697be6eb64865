// Package minipdf writes minimal PDF 1.4 files of plain text lines in the
// standard Helvetica font, with an optional outline and optional padding:
// the inputs that the evaluation, the reliability campaign and the end-to-end
// tests ingest. It is not a general PDF writer. Its functions keep no state
// and are safe for concurrent use.
package minipdf

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
)

// Page is the text lines of one page.
type Page []string

// Mark is a top-level bookmark: its title and the 0-based page and line it
// points to.
type Mark struct {
	Title      string
	Page, Line int
}

// Options are what a PDF holds besides its pages; the zero value is a
// PDF with no title, outline or padding.
type Options struct {
	Title, Producer string
	// CreationDate is the Info dictionary's CreationDate as written (a PDF
	// date string such as "D:20190102030405Z"); none when "".
	CreationDate string
	Marks        []Mark // the outline (none when empty)
	// Size pads the file to about this many bytes with an unreferenced
	// stream of random bytes (incompressible, never parsed); 0 is none.
	Size int
}

// Write renders pages as a PDF. Characters outside Latin-1 become '?'.
func Write(pages []Page, o Options) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	// 1: catalog, 2: pages, 3: font, 4: info, then content/page pairs.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 6+2*i)
	}
	outlines := ""
	if len(o.Marks) > 0 {
		outlines = fmt.Sprintf(" /Outlines %d 0 R", 5+2*len(pages))
	}
	obj("<< /Type /Catalog /Pages 2 0 R" + outlines + " >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	created := ""
	if o.CreationDate != "" {
		created = fmt.Sprintf(" /CreationDate (%s)", String(o.CreationDate))
	}
	obj(fmt.Sprintf("<< /Title (%s) /Producer (%s)%s >>", String(o.Title), String(o.Producer), created))
	for _, p := range pages {
		var c bytes.Buffer
		c.WriteString("BT /F1 10 Tf 12 TL 56 770 Td\n")
		for _, line := range p {
			fmt.Fprintf(&c, "(%s) '\n", String(line))
		}
		c.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", len(offsets)))
	}
	writeOutline(obj, 5+2*len(pages), o.Marks)
	if pad := o.Size - b.Len() - 400; pad > 0 {
		data := make([]byte, pad)
		rand.Read(data)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", pad, data))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// writeOutline writes marks as a flat outline whose root is object root.
func writeOutline(obj func(string), root int, marks []Mark) {
	if len(marks) == 0 {
		return
	}
	obj(fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", root+1, root+len(marks), len(marks)))
	for i, m := range marks {
		links := ""
		if i > 0 {
			links += fmt.Sprintf(" /Prev %d 0 R", root+i)
		}
		if i+1 < len(marks) {
			links += fmt.Sprintf(" /Next %d 0 R", root+i+2)
		}
		obj(fmt.Sprintf("<< /Title (%s) /Parent %d 0 R%s /Dest [%d 0 R /XYZ 56 %d 0] >>",
			String(m.Title), root, links, 6+2*m.Page, 782-12*m.Line))
	}
}

// String escapes s for a PDF literal string in WinAnsi encoding.
func String(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 32 && r < 127:
			b.WriteRune(r)
		case r >= 160 && r <= 255:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// Wrap breaks text into lines of at most width characters.
func Wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
