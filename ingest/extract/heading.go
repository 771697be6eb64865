package extract

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Heading is one heading of a document, in document order.
type Heading struct {
	// Level is the outline level: 1 for a chapter, 2 for a section, and so
	// on; 0 is a document title inside the text (a DOCX Title paragraph).
	Level int
	// Title is the heading's text on one line.
	Title string
	// Page is the 0-based index into Document.Pages of the page holding it.
	Page int
	// Offset is the byte offset in Pages[Page] where the heading's text
	// starts, or where its page starts when the text was not found there
	// (a PDF bookmark whose title is not printed on its page).
	Offset int
}

// Limits on what is kept of a document's headings: a heading longer than
// maxHeadingRunes is cut, one nested deeper than maxHeadingLevel is left
// out, and a document keeps at most maxHeadings.
const (
	maxHeadingRunes = 200
	maxHeadingLevel = 9
	maxHeadings     = 20000
)

// placeHeadings cleans the titles of hs (Page set, Offset ignored), drops
// empty or out-of-range ones, and sets each Offset to where its title
// occurs in the cleaned page text, searching from the previous heading on
// the same page; a title not found there is placed at that previous
// heading, or at the page start. The result is sorted by page and offset.
func placeHeadings(pages []string, hs []Heading) []Heading {
	slices.SortStableFunc(hs, func(a, b Heading) int { return cmp.Compare(a.Page, b.Page) })
	var out []Heading
	page, cursor := -1, 0
	for _, h := range hs {
		h.Title = cutRunes(oneLine(h.Title), maxHeadingRunes)
		if h.Title == "" || h.Page < 0 || h.Page >= len(pages) || h.Level < 0 || h.Level > maxHeadingLevel {
			continue
		}
		if len(out) == maxHeadings {
			break
		}
		if h.Page != page {
			page, cursor = h.Page, 0
		}
		h.Offset = cursor
		if i := findTitle(pages[page][cursor:], h.Title); i >= 0 {
			h.Offset = cursor + i
			cursor = h.Offset
		}
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b Heading) int {
		return cmp.Or(cmp.Compare(a.Page, b.Page), cmp.Compare(a.Offset, b.Offset))
	})
	return out
}

// findTitle returns the byte offset of title in text, ignoring case and
// how its words are spaced or broken across lines: the first occurrence
// that is a line of its own (as headings are), else the first anywhere,
// else -1.
func findTitle(text, title string) int {
	words := strings.Fields(title)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	pattern := strings.Join(words, `\s+`)
	for _, re := range []string{`(?im)^[ \t]*` + pattern + `[ \t]*$`, `(?i)` + pattern} {
		r, err := regexp.Compile(re)
		if err != nil {
			return -1
		}
		if loc := r.FindStringIndex(text); loc != nil {
			return loc[0] + len(text[loc[0]:loc[1]]) - len(strings.TrimLeft(text[loc[0]:loc[1]], " \t"))
		}
	}
	return -1
}

// cutRunes shortens s to at most n runes.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}

// headingText collects the text of one heading element at a time (an ODT
// text:h, a slide's title shape) into Headings; elements of the same name
// nested inside it are part of it.
type headingText struct {
	elem  string // local name of the element being read, "" when none
	depth int    // nesting of elem inside itself
	level int
	page  int
	text  strings.Builder
	heads []Heading
}

// begin starts a heading at element elem, unless one is being read.
func (h *headingText) begin(elem string, level int) {
	if h.elem != "" {
		if elem == h.elem {
			h.depth++
		}
		return
	}
	h.elem, h.depth, h.level = elem, 1, level
	h.text.Reset()
}

// chars adds text lying on page page.
func (h *headingText) chars(s string, page int) {
	if h.elem == "" {
		return
	}
	if strings.TrimSpace(h.text.String()) == "" {
		h.page = page
	}
	h.text.WriteString(s)
}

// end closes elem; the heading is kept when it has text and a level.
func (h *headingText) end(elem string) {
	if h.elem == "" || elem != h.elem {
		return
	}
	if h.depth--; h.depth > 0 {
		return
	}
	h.elem = ""
	if h.level >= 0 && strings.TrimSpace(h.text.String()) != "" {
		h.heads = append(h.heads, Heading{Level: h.level, Title: h.text.String(), Page: h.page})
	}
}
