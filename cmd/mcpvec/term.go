package main

import (
	"fmt"
	"io"
	"strings"
)

// termSafe returns s with everything a terminal would act on rather than
// show — C0 and C1 control characters (escape sequences start with ESC or
// CSI), DEL, and the Unicode bidirectional overrides that reorder a line —
// replaced by a visible escape such as \x1b. Newlines and tabs are kept when
// keepLines is set. File names and titles come from documents anyone may
// have written, and ls, search and fetch print them.
func termSafe(s string, keepLines bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return unsafeRune(r, keepLines) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unsafeRune(r, keepLines) {
			b.WriteRune(r)
		} else if r < 0x100 {
			fmt.Fprintf(&b, `\x%02x`, r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func unsafeRune(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi embeddings, overrides and isolates
	}
	return false
}

// termWriter escapes what it forwards with termSafe, keeping line breaks.
// It is for report lines that name files, not for progress lines, which
// redraw themselves with escape sequences.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, termSafe(string(p), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}
