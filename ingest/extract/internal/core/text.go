package core

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// softHyphen marks a hyphen that only exists because of a line break: the
// Unicode soft hyphen, and U+0002 which pdfium emits for hyphens it found at
// line ends.
func softHyphen(r rune) bool { return r == '\u00ad' || r == '\u0002' }

// CleanText normalises extracted text: Unicode NFKC (so ligatures such as
// "ﬁ" become "fi"), control and zero-width characters removed, words
// hyphenated across line ends joined ("exam-\nple" becomes "example"),
// runs of spaces and tabs collapsed, lines trimmed, and runs of blank lines
// reduced to one blank line, which marks a paragraph break. Single line
// breaks are kept. CleanText is a pure function, safe for concurrent use.
func CleanText(s string) string {
	s = norm.NFKC.String(strings.ToValidUTF8(s, "\uFFFD"))
	lines := splitLines(s)
	lines = joinHyphenated(lines)
	var b strings.Builder
	b.Grow(len(s))
	blank := false
	for _, ln := range lines {
		if ln == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(ln)
	}
	return b.String()
}

// splitLines cuts s into lines on any line or paragraph separator (a form
// feed or U+2029 becomes a blank line) and normalises each line's spacing.
func splitLines(s string) []string {
	var lines []string
	var cur strings.Builder
	space := false
	flush := func() {
		lines = append(lines, strings.TrimSpace(cur.String()))
		cur.Reset()
		space = false
	}
	for i, r := range s {
		switch {
		case r == '\r':
			if !strings.HasPrefix(s[i+1:], "\n") {
				flush()
			}
		case r == '\n' || r == '\u2028' || r == '\u0085' || r == '\v':
			flush()
		case r == '\f' || r == '\u2029':
			flush()
			lines = append(lines, "")
		case softHyphen(r):
			cur.WriteRune('\u00ad')
		case unicode.IsSpace(r):
			space = true
		case dropRune(r):
		default:
			if space && cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			space = false
			cur.WriteRune(r)
		}
	}
	flush()
	return lines
}

// dropRune reports whether r is invisible noise: control characters,
// zero-width characters, byte order marks and non-characters.
func dropRune(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\ufffe', '\uffff':
		return true
	}
	return unicode.IsControl(r)
}

// joinHyphenated joins a line ending in a hyphen after a letter with the
// next line when that starts with a lower-case letter, dropping the hyphen.
// Soft hyphens (kept as U+00AD by splitLines) are always dropped, and join
// lines when they end one.
func joinHyphenated(lines []string) []string {
	out := lines[:0]
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		for i+1 < len(lines) && lines[i+1] != "" {
			head, ok := hyphenJoin(ln, lines[i+1])
			if !ok {
				break
			}
			ln = head
			i++
		}
		if strings.Contains(ln, "\u00ad") {
			ln = strings.Join(strings.Fields(strings.ReplaceAll(ln, "\u00ad", "")), " ")
		}
		out = append(out, ln)
	}
	return out
}

// hyphenJoin returns a+b without the trailing hyphen when a ends with a
// word broken across the line end.
func hyphenJoin(a, b string) (string, bool) {
	last, n := utf8.DecodeLastRuneInString(a)
	if last == '\u00ad' {
		return a[:len(a)-n] + b, true
	}
	if last != '-' && last != '\u2010' {
		return "", false
	}
	prev, _ := utf8.DecodeLastRuneInString(a[:len(a)-n])
	next, _ := utf8.DecodeRuneInString(b)
	if !unicode.IsLetter(prev) || !unicode.IsLower(next) {
		return "", false
	}
	return a[:len(a)-n] + b, true
}

// TextQuality classifies cleaned text: nil when it has enough real
// characters, ErrNoText when it has no visible character at all, and
// ErrGarbage when more than a third of the visible characters are
// replacement characters, private-use code points or unassigned runes.
func TextQuality(pages ...string) error {
	var visible, bad int
	for _, s := range pages { // page by page: joining them would copy the text
		for _, r := range s {
			if unicode.IsSpace(r) {
				continue
			}
			visible++
			if r == utf8.RuneError || unicode.Is(unicode.Co, r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
				bad++
			}
		}
	}
	switch {
	case visible == 0:
		return ErrNoText
	case bad*3 > visible:
		return ErrGarbage
	}
	return nil
}

// OneLine cleans s and joins it into a single line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(CleanText(s)), " ")
}

// CleanTitle tidies a metadata title and drops the placeholders authoring
// tools leave there ("Untitled", "Microsoft Word - x.doc", a bare file
// name), returning "" so that the caller falls back to the file name.
func CleanTitle(t string) string {
	t = OneLine(t)
	for _, p := range []string{"Microsoft Word - ", "Microsoft PowerPoint - ", "Microsoft Excel - "} {
		t = strings.TrimPrefix(t, p)
	}
	t = strings.TrimLeft(t, "-–—:;,. ")
	switch {
	case utf8.RuneCountInString(t) < 2, placeholderTitle[strings.ToLower(t)], fileNameTitle.MatchString(t):
		return ""
	}
	return t
}

var (
	placeholderTitle = map[string]bool{"untitled": true, "no title": true, "title": true, "document": true,
		"untitled document": true, "slide 1": true, "powerpoint presentation": true}
	fileNameTitle = regexp.MustCompile(`(?i)^[^/\\]*\.(?:docx?|pdf|pptx?|xlsx?|rtf|odt|odp|tex|dvi|ps|eps|indd|qxd|graffle|txt|html?|pages|key|numbers|ai)$`)
)
