package pdf

import (
	"slices"

	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// paragraphGap is how much wider than the page's usual line spacing a gap
// between two baselines must be to count as a paragraph break.
const paragraphGap = 1.4

// markParagraphs turns the line breaks of a page's text into blank lines
// where the baselines are unusually far apart (or the text jumps up, as at
// a new column), since pdfium reports lines but not paragraphs. It needs
// one rune of text per pdfium character to look up each line's position;
// when that does not hold, or the page has fewer than three lines, it
// returns text unchanged.
func (s *session) markParagraphs(tp references.FPDF_TEXTPAGE, text string, count int) string {
	runes := []rune(text)
	if len(runes) != count {
		return text
	}
	lines := splitRuneLines(runes)
	if len(lines) < 3 {
		return text
	}
	// top[i] is the baseline of line i's first character, bottom[i] that of
	// its last: pdfium joins a word hyphenated across lines into one line,
	// so a line can span two baselines.
	top := make([]float64, len(lines))
	bottom := make([]float64, len(lines))
	known := make([]bool, len(lines))
	for i, ln := range lines {
		a, err1 := s.inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: ln.first})
		b, err2 := s.inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: ln.last})
		if err1 == nil && err2 == nil {
			top[i], bottom[i], known[i] = a.Y, b.Y, true
		}
	}
	gap := func(i int) (float64, bool) {
		return bottom[i-1] - top[i], known[i] && known[i-1]
	}
	var steps []float64
	for i := 1; i < len(lines); i++ {
		if d, ok := gap(i); ok && d > 0 {
			steps = append(steps, d)
		}
	}
	if len(steps) < 2 {
		return text
	}
	// The usual line spacing: a low percentile rather than the median,
	// because on pages of short paragraphs the paragraph gaps are common.
	slices.Sort(steps)
	usual := steps[(len(steps)-1)/3]
	out := make([]rune, 0, len(runes)+len(lines))
	for i, ln := range lines {
		if i > 0 {
			out = append(out, '\n')
			if d, ok := gap(i); ok && (d > paragraphGap*usual || d < -usual) {
				out = append(out, '\n')
			}
		}
		out = append(out, runes[ln.start:ln.end]...)
	}
	return string(out)
}

// runeLine is one line of a page's text: runes [start, end) and the index of
// its first and last visible runes.
type runeLine struct{ start, end, first, last int }

// splitRuneLines splits at \r\n, \r or \n, dropping lines without visible
// characters (their position says nothing about paragraphs).
func splitRuneLines(runes []rune) []runeLine {
	var lines []runeLine
	start := 0
	for i := 0; i <= len(runes); i++ {
		if i < len(runes) && runes[i] != '\n' && runes[i] != '\r' {
			continue
		}
		first, last := -1, -1
		for j := start; j < i; j++ {
			if runes[j] != ' ' && runes[j] != '\t' {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		if first >= 0 {
			lines = append(lines, runeLine{start, i, first, last})
		}
		if i+1 < len(runes) && runes[i] == '\r' && runes[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	return lines
}
