package library

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// bestSentence returns the sentences of text and the index of the one that
// holds the most distinct query terms (the first on a tie).
func bestSentence(text string, terms map[string]bool) ([][2]int, int) {
	sents := sentences(text)
	best, bestScore := 0, -1
	for i, s := range sents {
		if score := matchScore(text[s[0]:s[1]], terms); score > bestScore {
			best, bestScore = i, score
		}
	}
	return sents, best
}

// snippet returns about max characters of text centred on the sentence that
// holds the most distinct query terms, widened with its neighbours, and the
// byte offset of that sentence in text (for citing its page).
func snippet(text string, terms map[string]bool, maxChars int) (string, int) {
	sents, best := bestSentence(text, terms)
	bestOff := 0
	if len(sents) > 0 {
		// The sentence proper starts after the break that ended the last one.
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

// matchScore counts the distinct query terms a sentence matches. A word
// matches a term when it starts with the term's stem (stems are mostly
// prefixes: "attached" → "attach"; Snowball's "y" → "i" is undone). This
// avoids stemming every word of every result, which dominated search time.
func matchScore(sentence string, terms map[string]bool) int {
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

// sentences splits text into [start,end) byte ranges at sentence ends and
// paragraph breaks.
func sentences(text string) [][2]int {
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

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
