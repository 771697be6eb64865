package markup

import (
	"strconv"

	"golang.org/x/text/encoding/charmap"
)

// symbol handles a control symbol: \'hh, \~, \-, \_, \*, \\, \{, \}.
func (p *rtfParser) symbol(c byte) {
	switch c {
	case '\'':
		if p.pos+2 > len(p.src) {
			return
		}
		b, err := strconv.ParseUint(p.src[p.pos:p.pos+2], 16, 8)
		p.pos += 2
		if err == nil {
			p.emit(string(p.cp.DecodeByte(byte(b))))
		}
	case '~':
		p.emit("\u00a0")
	case '_':
		p.emit("-")
	case '*':
		p.g.skip = true // an optional destination this reader does not know
	case '\\', '{', '}':
		p.emit(string(c))
	case '\n', '\r':
		p.paragraph()
	}
}

// word handles a control word with its optional parameter.
func (p *rtfParser) word(w string, n int, hasParam bool) {
	if s, ok := rtfChars[w]; ok {
		p.emit(s)
		return
	}
	switch {
	case w == "title": // in \info, which is otherwise skipped
		p.g.title, p.g.skip = true, true
	case rtfSkipped[w]:
		p.g.skip = true
	case w == "u" && hasParam:
		p.unicode(n)
	case w == "uc" && hasParam:
		p.g.uc = max(n, 0)
	case w == "bin" && hasParam:
		p.pos = min(p.pos+max(n, 0), len(p.src))
	case w == "ansicpg" && hasParam:
		if cp := rtfCodepages[n]; cp != nil {
			p.cp = cp
		}
	default:
		p.layout(w)
	}
}

// layout handles the words that shape the text: paragraphs, lines, pages
// and table cells.
func (p *rtfParser) layout(w string) {
	if p.g.skip {
		return
	}
	switch w {
	case "par", "sect":
		p.paragraph()
	case "line":
		p.f.Line()
	case "page":
		p.f.PageBreak()
	case "trowd":
		if !p.f.InCell() {
			p.f.StartRow()
		}
	case "cell":
		p.f.EndCell()
	case "row":
		p.f.EndRow()
	}
}

func (p *rtfParser) paragraph() {
	if !p.g.skip {
		p.f.Para()
	}
}

// unicode emits \uN (a signed 16-bit code unit) and arranges to skip the
// ANSI fallback that follows it. Surrogate pairs arrive as two \u words.
func (p *rtfParser) unicode(n int) {
	if n < 0 {
		n += 65536
	}
	p.skipN = 0
	r := rune(n)
	if r >= 0xd800 && r < 0xdc00 {
		p.hi = r
	} else if r >= 0xdc00 && r < 0xe000 && p.hi != 0 {
		r = (p.hi-0xd800)<<10 + (r - 0xdc00) + 0x10000
		p.hi = 0
		p.emit(string(r))
	} else {
		p.emit(string(r))
	}
	p.skipN = p.g.uc
}

// rtfCodepages maps \ansicpg values to decoders; others keep Windows-1252.
var rtfCodepages = map[int]*charmap.Charmap{
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1257: charmap.Windows1257,
	437: charmap.CodePage437, 850: charmap.CodePage850,
}
