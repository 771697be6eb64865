package analysis

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

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
		if isNumber(span) {
			continue
		}
		if got, want := appendSpan(nil, span, English, nil), appendSplit(nil, span, English, nil); !slices.Equal(got, want) {
			t.Fatalf("appendSpan(%q) = %q, splitting gives %q", span, got, want)
		}
	}
}
