package library

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// mapMatchScore is matchScore as it was before it stopped allocating: the
// reference the faster one must agree with.
func mapMatchScore(sentence string, terms map[string]bool) int {
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(sentence, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		for t := range terms {
			r, _ := utf8.DecodeRuneInString(t)
			cjk := analysis.IsUnspaced(r) && strings.Contains(w, t) // bigrams match anywhere in a run
			if !seen[t] && (cjk || strings.HasPrefix(w, t) || (strings.HasSuffix(t, "i") && strings.HasPrefix(w, t[:len(t)-1]+"y"))) {
				seen[t] = true
			}
		}
	}
	return len(seen)
}

// TestBestSentenceAgreesWithMaps checks bestSentence's sentences and
// choice against the reference (refSentences, mapMatchScore) on random
// texts of a few sentences of mixed case, digits, punctuation, non-ASCII
// letters and invalid UTF-8, and on real queries' stems.
func TestBestSentenceAgreesWithMaps(t *testing.T) {
	words := []string{"Cats", "cat", "attached", "ATTACH", "study", "studies", "Studied", "i", "y", "yes",
		"Über", "über", "naïve", "2024", "x2", "é", "\xff", "Memcheck", "memory", "happy", "happiness", "ß"}
	seps := []string{" ", ", ", ". ", "-", "\n", "'", "\u00a0", "—", "? ", ".\n"}
	queries := []string{"cats attached to studies", "happy memory checks", "I y yes", "Über naïve 2024", "",
		"studying cats' happiness in 2024 über alles", manyTerms()}
	r := rand.New(rand.NewPCG(1, 2))
	for _, q := range queries {
		ts := queryTerms(q)
		for range 4000 {
			var b strings.Builder
			for range r.IntN(24) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString(seps[r.IntN(len(seps))])
			}
			text := b.String()
			sents, best := bestSentence(text, ts)
			wantSents, wantBest := refBestSentence(text, ts)
			if !slices.Equal(sents, wantSents) || best != wantBest {
				t.Fatalf("bestSentence(%q, %q) = %v, %d; the reference says %v, %d", text, ts.stems, sents, best, wantSents, wantBest)
			}
		}
	}
}

// manyTerms is a query of more than 64 distinct stems, among them the
// reference's words.
func manyTerms() string {
	var b strings.Builder
	for i := range 70 {
		b.WriteString(string(rune('a'+i%26)) + strings.Repeat(string(rune('a'+i/26)), 3) + "x ")
	}
	return b.String() + "cats study memory happy"
}

// TestBestSentenceAllocates only its sentence list on ASCII text (its
// flags stay on the stack).
func TestBestSentenceAllocates(t *testing.T) {
	ts := queryTerms("cats attached to studies of memory")
	s := strings.Repeat("The cats were attached to a long study of memory checks, ", 6) + "42 of them. None! Or all"
	if n := testing.AllocsPerRun(100, func() { bestSentence(s, ts) }); n > 1 {
		t.Errorf("bestSentence allocates %v times per call, want 1", n)
	}
}

// refSnippet is snippet as it was before it counted characters once per
// sentence: widening recounted the whole window at every step. The
// reference the faster one must agree with.
func refSnippet(text string, terms *termSet, maxChars int) (string, int) {
	sents, best := refBestSentence(text, terms.forText(text)) // the passage's language, as snippet reads it
	bestOff := 0
	if len(sents) > 0 {
		bestOff = sents[best][0]
		for bestOff < sents[best][1] && (text[bestOff] == ' ' || text[bestOff] == '\n') {
			bestOff++
		}
	}
	trimmed := strings.TrimSpace(text)
	if utf8.RuneCountInString(trimmed) <= maxChars {
		return trimmed, bestOff
	}
	if len(sents) == 0 {
		return cutRunes(trimmed, maxChars-1) + "…", 0
	}
	lo, hi := sents[best][0], sents[best][1]
	for i, j := best-1, best+1; ; i, j = i-1, j+1 {
		grew := false
		if j < len(sents) && utf8.RuneCountInString(text[lo:sents[j][1]]) <= maxChars {
			hi, grew = sents[j][1], true
		}
		if i >= 0 && utf8.RuneCountInString(text[sents[i][0]:hi]) <= maxChars {
			lo, grew = sents[i][0], true
		}
		if !grew {
			break
		}
	}
	out := text[lo:hi]
	if utf8.RuneCountInString(out) > maxChars {
		out = cutRunes(out, maxChars-1) + "…"
	}
	if lo > 0 {
		out = "…" + strings.TrimLeftFunc(out, unicode.IsSpace)
	}
	if hi < len(text) && !strings.HasSuffix(out, "…") {
		out += "…"
	}
	return strings.TrimSpace(out), bestOff
}

// refBestSentence is bestSentence as it was before it scanned eight bytes
// at a time, on the map-based matchScore.
func refBestSentence(text string, terms *termSet) ([][2]int, int) {
	m := map[string]bool{}
	for _, s := range terms.stems {
		m[s] = true
	}
	sents := refSentences(text)
	best, bestScore := 0, -1
	for i, s := range sents {
		if score := mapMatchScore(text[s[0]:s[1]], m); score > bestScore {
			best, bestScore = i, score
		}
	}
	return sents, best
}

// refSentences is sentences as it was before it scanned eight bytes at a
// time.
func refSentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n' && i+1 < len(text) && text[i+1] == '\n':
			end = i
		case (c == '.' || c == '?' || c == '!') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n'):
			end = i + 1
		}
		if end > start {
			out = append(out, [2]int{start, end})
			start = end
		}
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// TestSnippetAgreesWithReference compares snippet with refSnippet on random
// texts of short and long sentences, ASCII and not, paragraph breaks and
// spaces at the ends, at several lengths.
func TestSnippetAgreesWithReference(t *testing.T) {
	words := []string{"Cats", "cat", "attached", "ATTACH", "study", "studies", "homes", "Über", "naïve", "2024",
		"the", "of", "memory", "lighthouse", "—", "日本語", "a", "very-long-compound-word-indeed", "\xff", "…"}
	ends := []string{" ", " ", " ", ". ", "? ", "! ", ".\n", "\n\n", ", ", "\u00a0", ".\u2003"}
	queries := []string{"cats attached to studies", "memory lighthouse", "über naïve 2024", "日本語 homes"}
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 3000 {
		var b strings.Builder
		if n%7 == 0 {
			b.WriteString("\n ")
		}
		if n%11 == 0 {
			b.WriteString("\u00a0\u0085 ")
		}
		for range r.IntN(120) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(ends[r.IntN(len(ends))])
		}
		text, ts := b.String(), queryTerms(queries[n%len(queries)])
		for _, max := range []int{1, 20, 80, 200, 480} {
			got, gotOff := snippet(text, ts, max)
			want, wantOff := refSnippet(text, ts, max)
			if got != want || gotOff != wantOff {
				t.Fatalf("snippet(%q, %d) = %q, %d; the reference says %q, %d", text, max, got, gotOff, want, wantOff)
			}
		}
	}
}

func BenchmarkSnippet(b *testing.B) {
	ts := queryTerms("0-dimensional biomaterials show inductive properties")
	text := strings.Repeat("Biomaterials with nanoscale features were studied in vivo. Their inductive properties depend on dimension and surface chemistry, which we measured over 12 weeks. ", 6)
	for b.Loop() {
		snippet(text, ts, 480)
	}
}

// TestPairSetKeepsEveryMatch: a word that starts with a stem (ignoring
// case) always passes the pair filter of a set holding that stem, and one
// that starts with no stem's first two bytes does not.
func TestPairSetKeepsEveryMatch(t *testing.T) {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(9, 10))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		return string(b)
	}
	for range 20000 {
		stem := strings.ToLower(word(1 + r.IntN(4)))
		var p pairSet
		p.add(stem)
		p.add("é" + stem) // non-ASCII stems add nothing
		w := word(1 + r.IntN(6))
		if r.IntN(2) == 0 {
			w = strings.ToUpper(stem[:1]) + stem[1:] + w
		}
		lw := strings.ToLower(w)
		want := strings.HasPrefix(lw, stem) || len(stem) > 1 && len(lw) > 1 && lw[:2] == stem[:2]
		if got := p.has(w); got != want {
			t.Fatalf("pairs of %q: has(%q) = %v, want %v", stem, w, got, want)
		}
	}
}

// TestPooledTerms: a term set taken from the pool after others were given
// back is the one termsOf makes.
func TestPooledTerms(t *testing.T) {
	queries := []string{"studying cats' happiness in 2024 über alles", "I y yes", manyTerms(), "", "happy memory checks"}
	for round := range 3 {
		for i := range queries {
			q := queries[(i+round)%len(queries)]
			tokens := analysis.Tokenize(q)
			got := pooledTerms(tokens)
			want := termsOf(tokens)
			if !slices.Equal(got.stems, want.stems) || !slices.Equal(got.ys, want.ys) ||
				got.first != want.first || got.byFirst != want.byFirst || got.pairs != want.pairs {
				t.Fatalf("pooledTerms(%q) = %+v, termsOf says %+v", q, got, want)
			}
			got.release()
		}
	}
}
