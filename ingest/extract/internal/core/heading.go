package core

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits on what is kept of a document's headings: a heading longer than
// MaxHeadingRunes is cut, one nested deeper than MaxHeadingLevel is left
// out, and a document keeps at most MaxHeadings.
const (
	MaxHeadingRunes = 200
	MaxHeadingLevel = 9
	MaxHeadings     = 20000
)

// PlaceHeadings cleans the titles of hs (Page set, Offset ignored), drops
// empty or out-of-range ones, and sets each Offset to where its title
// occurs in the cleaned page text, searching from the previous heading on
// the same page; a title not found there is placed at that previous
// heading, or at the page start. The result is sorted by page and offset.
func PlaceHeadings(pages []string, hs []Heading) []Heading {
	slices.SortStableFunc(hs, func(a, b Heading) int { return cmp.Compare(a.Page, b.Page) })
	var out []Heading
	page, cursor := -1, 0
	for _, h := range hs {
		h.Title = CutRunes(OneLine(h.Title), MaxHeadingRunes)
		if h.Title == "" || h.Page < 0 || h.Page >= len(pages) || h.Level < 0 || h.Level > MaxHeadingLevel {
			continue
		}
		if len(out) == MaxHeadings {
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

// CutRunes shortens s to at most n runes.
func CutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}
