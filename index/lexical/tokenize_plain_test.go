package lexical

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refAppendSpan is appendSpan without the plain-word shortcut: every span
// split into segments and words.
func refAppendSpan(out []string, span string) []string {
	if isNumber(span) {
		return appendTerm(out, strings.ReplaceAll(span, ",", ""))
	}
	span = strings.ReplaceAll(span, ",", "")
	lower := strings.ToLower(span)
	parts := 0
	for _, seg := range splitSegments(span) {
		words := splitWords(seg)
		for _, w := range words {
			if t := normWord(w); t != "" {
				out = appendTerm(out, t)
			}
		}
		parts += len(words)
		if len(words) > 1 && seg != span {
			out = appendTerm(out, wholeForm(strings.ToLower(seg)))
		}
	}
	if parts > 1 {
		out = appendTerm(out, wholeForm(lower))
	}
	return out
}

// TestPlainWordShortcut: appendSpan gives what splitting gives, on random
// spans of letters of both cases, digits, joiners, hyphens, commas and
// non-ASCII letters, stopwords and long words among them.
func TestPlainWordShortcut(t *testing.T) {
	parts := []string{"a", "z", "Q", "cat", "Cats", "running", "the", "THE", "x", "7", "2024", "-", "_", ".", ",", "=",
		"é", "É", "ß", "bz", "Decompress", "HTTP", "Server", strings.Repeat("long", 20), "y", "ies"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 50000 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		span := b.String()
		if got, want := appendSpan(nil, span), refAppendSpan(nil, span); !slices.Equal(got, want) {
			t.Fatalf("appendSpan(%q) = %q, splitting gives %q", span, got, want)
		}
	}
}
