package library

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/store"
)

// refPassageTitle is passageTitle as it was built before it made one
// string: the reference the faster one must agree with.
func refPassageTitle(d *store.Document, heads []string, first, last int) string {
	parts := []string{d.Title}
	if len(heads) > 0 && strings.EqualFold(heads[0], d.Title) {
		heads = heads[1:]
	}
	for len(heads) > 1 && utf8.RuneCountInString(strings.Join(heads, store.HeadingSeparator)) > maxSectionRunes {
		heads = heads[1:]
	}
	if s := strings.Join(heads, store.HeadingSeparator); s != "" {
		parts = append(parts, s)
	}
	switch {
	case !isPaged(d) || first <= 0:
	case last > first:
		parts = append(parts, fmt.Sprintf("pp. %d–%d", first, last))
	default:
		parts = append(parts, fmt.Sprintf("p. %d", first))
	}
	return strings.Join(parts, " — ")
}

// TestPassageTitleMatchesReference: titles are the reference's for
// headings empty, repeating the title, long enough to drop outer ones
// (multi-byte and invalid UTF-8 among them), of PDFs and text, with and
// without pages.
func TestPassageTitleMatchesReference(t *testing.T) {
	pieces := []string{"", "Manual", "manual", "4.2 Memcheck options", "Überblick über die Optionen",
		strings.Repeat("long heading ", 5), "列出指定文件的信息", "\xe2\x80", "\xba tail", " ", "x"}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		d := &store.Document{Title: "Manual", MediaType: "text/markdown"}
		if i%2 == 0 {
			d.MediaType = "application/pdf"
		}
		if i%7 == 0 {
			d.Title = pieces[r.IntN(len(pieces))]
		}
		var heads []string
		for range r.IntN(6) {
			heads = append(heads, pieces[r.IntN(len(pieces))])
		}
		first := r.IntN(4) - 1
		last := first + r.IntN(3) - 1
		if got, want := passageTitle(d, heads, first, last), refPassageTitle(d, heads, first, last); got != want {
			t.Fatalf("%q %q pages %d–%d: %q, want %q", d.Title, heads, first, last, got, want)
		}
	}
}
