package library

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// mapMatchScore is matchScore as it was before it stopped allocating: the
// reference the faster one must agree with.
func mapMatchScore(sentence string, terms map[string]bool) int {
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(sentence, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		for t := range terms {
			if !seen[t] && (strings.HasPrefix(w, t) || (strings.HasSuffix(t, "i") && strings.HasPrefix(w, t[:len(t)-1]+"y"))) {
				seen[t] = true
			}
		}
	}
	return len(seen)
}

// TestMatchScoreAgreesWithMaps checks matchScore against the map-based
// reference on random sentences of mixed case, digits, punctuation,
// non-ASCII letters and invalid UTF-8, and on real queries' stems.
func TestMatchScoreAgreesWithMaps(t *testing.T) {
	words := []string{"Cats", "cat", "attached", "ATTACH", "study", "studies", "Studied", "i", "y", "yes",
		"Über", "über", "naïve", "2024", "x2", "é", "\xff", "Memcheck", "memory", "happy", "happiness", "ß"}
	seps := []string{" ", ", ", ". ", "-", "\n", "'", "\u00a0", "—"}
	queries := []string{"cats attached to studies", "happy memory checks", "I y yes", "Über naïve 2024", "",
		"studying cats' happiness in 2024 über alles"}
	r := rand.New(rand.NewPCG(1, 2))
	for _, q := range queries {
		ts := queryTerms(q)
		m := map[string]bool{}
		for _, s := range ts.stems {
			m[s] = true
		}
		seen := make([]bool, len(ts.stems))
		for range 2000 {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString(seps[r.IntN(len(seps))])
			}
			s := b.String()
			if got, want := matchScore(s, ts, seen), mapMatchScore(s, m); got != want {
				t.Fatalf("matchScore(%q, %q) = %d, the reference says %d", s, ts.stems, got, want)
			}
		}
	}
}

// TestMatchScoreAllocates nothing on lower-case ASCII text.
func TestMatchScoreAllocates(t *testing.T) {
	ts := queryTerms("cats attached to studies of memory")
	seen := make([]bool, len(ts.stems))
	s := "the cats were attached to a long study of memory checks, 42 of them"
	if n := testing.AllocsPerRun(100, func() { matchScore(s, ts, seen) }); n != 0 {
		t.Errorf("matchScore allocates %v times per call, want 0", n)
	}
}

func BenchmarkSnippet(b *testing.B) {
	ts := queryTerms("0-dimensional biomaterials show inductive properties")
	text := strings.Repeat("Biomaterials with nanoscale features were studied in vivo. Their inductive properties depend on dimension and surface chemistry, which we measured over 12 weeks. ", 6)
	for b.Loop() {
		snippet(text, ts, 480)
	}
}
