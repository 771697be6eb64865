package markup

import (
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"golang.org/x/text/encoding/charmap"
)

// maxRTFDepth bounds group nesting; real files stay in the tens.
const maxRTFDepth = 1024

// rtfGroup is the state a { ... } group inherits and restores.
type rtfGroup struct {
	skip  bool // inside a destination whose text is not shown
	title bool // inside {\info{\title ...}}
	uc    int  // characters to skip after \uN
}

// rtfParser turns RTF into text: a tokenizer for control words
// (\word-N), control symbols (\', \~, \*, ...), groups and plain text.
type rtfParser struct {
	src   string
	pos   int
	stack []rtfGroup
	g     rtfGroup
	f     core.Flow
	title strings.Builder
	skipN int // fallback characters still to skip after a \uN
	cp    *charmap.Charmap
	hi    rune // a high surrogate waiting for its pair
}

// rtfSkipped are destinations whose text is not document text.
var rtfSkipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "pict": true, "object": true,
	"fldinst": true, "header": true, "footer": true, "headerl": true, "headerr": true, "headerf": true,
	"footerl": true, "footerr": true, "footerf": true, "info": true, "listtable": true,
	"listoverridetable": true, "revtbl": true, "rsidtbl": true, "generator": true, "xmlnstbl": true,
	"themedata": true, "colorschememapping": true, "datastore": true, "latentstyles": true,
	"filetbl": true, "bkmkstart": true, "bkmkend": true, "pntext": true, "pntxta": true, "pntxtb": true,
}

// rtfChars are control words that stand for one character.
var rtfChars = map[string]string{
	"tab": "\t", "emdash": "—", "endash": "–", "bullet": "•", "lquote": "‘", "rquote": "’",
	"ldblquote": "“", "rdblquote": "”", "emspace": " ", "enspace": " ", "qmspace": " ",
}

// RTF returns the text of an RTF document, split at \page breaks,
// and the title from its \info group. The text is charged to b; a
// document without an {\rtf header is ErrMalformed. RTF does not recover
// panics (its caller does).
func RTF(data []byte, b *core.Budget) (*core.Document, error) {
	if !strings.HasPrefix(strings.TrimLeft(string(data[:min(len(data), 64)]), " \r\n\t"), `{\rtf`) {
		return nil, fmt.Errorf("%w: no {\\rtf header", core.ErrMalformed)
	}
	p := &rtfParser{src: string(data), g: rtfGroup{uc: 1}, cp: charmap.Windows1252, f: core.Flow{Budget: b}}
	if err := p.run(); err != nil {
		return nil, err
	}
	return &core.Document{Title: core.CleanTitle(p.title.String()), Pages: p.f.Finish()}, nil
}

func (p *rtfParser) run() error {
	for p.pos < len(p.src) {
		if err := p.f.Budget.Err(); err != nil {
			return err
		}
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '{':
			if len(p.stack) >= maxRTFDepth {
				return fmt.Errorf("%w: rtf groups nested deeper than %d", core.ErrMalformed, maxRTFDepth)
			}
			p.stack = append(p.stack, p.g)
		case '}':
			if len(p.stack) == 0 {
				return nil // text after the document's closing brace is ignored
			}
			p.g = p.stack[len(p.stack)-1]
			p.stack = p.stack[:len(p.stack)-1]
		case '\\':
			p.control()
		case '\r', '\n':
		default:
			p.emit(string(c))
		}
	}
	return nil
}

// emit writes text unless the group is skipped or \uN fallback remains.
func (p *rtfParser) emit(s string) {
	if p.skipN > 0 {
		p.skipN--
		return
	}
	switch {
	case p.g.title:
		p.title.WriteString(s)
	case !p.g.skip:
		p.f.Text(s)
	}
}

// control reads the control word or symbol after a backslash.
func (p *rtfParser) control() {
	if p.pos >= len(p.src) {
		return
	}
	c := p.src[p.pos]
	if !isASCIILetter(c) {
		p.pos++
		p.symbol(c)
		return
	}
	start := p.pos
	for p.pos < len(p.src) && isASCIILetter(p.src[p.pos]) {
		p.pos++
	}
	word := p.src[start:p.pos]
	param, hasParam := p.number()
	if p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
	p.word(word, param, hasParam)
}

// number reads an optional signed decimal parameter.
func (p *rtfParser) number() (int, bool) {
	neg := p.pos < len(p.src) && p.src[p.pos] == '-'
	if neg {
		p.pos++
	}
	n, digits := 0, 0
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		if digits < 10 {
			n = n*10 + int(p.src[p.pos]-'0')
		}
		p.pos++
		digits++
	}
	if neg {
		n = -n
	}
	return n, digits > 0
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
