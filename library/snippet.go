package library

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// termSet is a query's distinct stems in a fixed order, each with its "y"
// spelling when Snowball ended it in "i" (see bestSentence). It is
// read-only once built.
type termSet struct {
	stems []string
	ys    []string // ys[i]: stems[i] with its final "i" as "y", or ""
	// first[c]: some stem starts with byte c. Words starting with a
	// non-ASCII byte are always compared (lower-casing may change them).
	first [256]bool
	// byFirst[c]: bit t is set when stems[t] or ys[t] starts with byte c;
	// used while there are at most 64 stems.
	byFirst [256]uint64
	// infix[i]: stems[i] is of a script written without spaces (a CJK
	// bigram or character), which a word holds anywhere, not only at its
	// start; anyInfix: some stem is.
	infix    []bool
	anyInfix bool
	// query, when set, is the query the stems are of; byLang[l] then holds
	// the stems plus the query's in language l, made by forText for a
	// passage of l.
	query  string
	byLang [8]*termSet
	// pairs: bit a<<7|b is set when a stem or y spelling may start an
	// ASCII word whose first two bytes, lower-cased, are a and b (b 0: a
	// word of one letter); pairs.has filters words before they are
	// compared.
	pairs pairSet
}

// pairSet is a set of pairs of ASCII bytes.
type pairSet [128 * 128 / 64]uint64

// add adds the pairs a word starting with s, which holds lower-case
// letters and digits, may start with: s's first two bytes, or every pair
// starting with s when it is one byte long. It ignores a stem that starts
// with a non-ASCII byte, which no ASCII word starts with.
func (p *pairSet) add(s string) {
	switch {
	case s[0] >= utf8.RuneSelf || len(s) > 1 && s[1] >= utf8.RuneSelf:
	case len(s) == 1:
		p[int(s[0])*2], p[int(s[0])*2+1] = ^uint64(0), ^uint64(0)
	default:
		k := int(s[0])<<7 | int(s[1])
		p[k/64] |= 1 << (k % 64)
	}
}

// has reports whether the pair the ASCII word w (letters and digits)
// starts with is in p, lower-cased.
func (p *pairSet) has(w string) bool {
	k := int(w[0]|0x20) << 7
	if len(w) > 1 {
		k |= int(w[1] | 0x20)
	}
	return p[k/64]&(1<<(k%64)) != 0
}

// queryTerms returns the distinct stems the lexical index makes of q.
func queryTerms(q string) *termSet {
	ts := termsOf(analysis.Tokenize(q))
	ts.query = q
	return ts
}

// termsOf returns the distinct stems among tokens (analysis.Tokenize's).
func termsOf(tokens []string) *termSet {
	ts := &termSet{}
	ts.add(tokens)
	return ts
}

// termSets holds spare termSets: one is 4 KB, and a search needs its own
// only while it runs.
var termSets = sync.Pool{New: func() any { return new(termSet) }}

// pooledTerms is termsOf(tokens) in a termSet from termSets; give it back
// with release once nothing uses it.
func pooledTerms(tokens []string) *termSet {
	ts := termSets.Get().(*termSet)
	ts.add(tokens)
	return ts
}

// release empties ts and gives it to termSets.
func (ts *termSet) release() {
	clear(ts.stems)
	clear(ts.ys)
	clear(ts.infix)
	*ts = termSet{stems: ts.stems[:0], ys: ts.ys[:0], infix: ts.infix[:0]}
	termSets.Put(ts)
}

// add adds the distinct stems among tokens that ts does not hold yet.
func (ts *termSet) add(tokens []string) {
	for _, t := range tokens {
		if slices.Contains(ts.stems, t) {
			continue
		}
		y := ""
		if strings.HasSuffix(t, "i") {
			y = t[:len(t)-1] + "y"
		}
		bit := uint64(1) << (len(ts.stems) % 64)
		ts.stems, ts.ys = append(ts.stems, t), append(ts.ys, y)
		r, _ := utf8.DecodeRuneInString(t)
		ts.infix = append(ts.infix, analysis.IsUnspaced(r))
		ts.anyInfix = ts.anyInfix || analysis.IsUnspaced(r)
		ts.first[t[0]] = true
		ts.byFirst[t[0]] |= bit
		ts.pairs.add(t)
		if y != "" {
			ts.first[y[0]] = true
			ts.byFirst[y[0]] |= bit
			ts.pairs.add(y)
		}
	}
}

// snippet returns about max characters of text centred on the sentence that
// holds the most distinct query terms, widened with its neighbours, and the
// byte offset of that sentence in text (for citing its page).
func snippet(text string, terms *termSet, maxChars int) (string, int) {
	var sb snippetBuf
	return sb.snippet(text, terms, maxChars)
}

// snippetBuf holds the scratch slices of snippets cut one after another,
// so the results of a search share one of each. It is not safe for
// concurrent use.
type snippetBuf struct {
	sents  [][2]int
	before []int
}

// snippet is the package's snippet, in sb's slices.
func (sb *snippetBuf) snippet(text string, terms *termSet, maxChars int) (string, int) {
	return sb.cut(text, terms.forText(text), maxChars)
}

// cut is snippet for the terms to find in text (termSet.forText's).
func (sb *snippetBuf) cut(text string, terms *termSet, maxChars int) (string, int) {
	sents, best := bestSentenceIn(sb.sents, text, terms)
	sb.sents = sents
	bestOff := 0
	if len(sents) > 0 {
		// The sentence proper starts after the break that ended the last one.
		bestOff = sents[best][0]
		for bestOff < sents[best][1] && (text[bestOff] == ' ' || text[bestOff] == '\n') {
			bestOff++
		}
	}
	left := strings.TrimLeftFunc(text, unicode.IsSpace)
	trimmed := strings.TrimRightFunc(left, unicode.IsSpace) // strings.TrimSpace(text)
	if len(trimmed) <= maxChars {
		return trimmed, bestOff
	}
	// The sentences tile text, so the characters between two sentence
	// bounds are a difference of running counts: one pass over text for
	// every count snippet needs. before[i]: runes ahead of sentence i.
	before := append(sb.before[:0], make([]int, len(sents)+1)...) // zeroed, no allocation once grown
	sb.before = before
	for i, s := range sents {
		before[i+1] = before[i] + runeCount(text[s[0]:s[1]])
	}
	// trimmed's characters are text's less the spaces cut from its ends.
	if before[len(sents)]-runeCount(text[:len(text)-len(left)])-runeCount(left[len(trimmed):]) <= maxChars {
		return trimmed, bestOff
	}
	if len(sents) == 0 {
		return cutRunes(trimmed, maxChars-1) + "…", 0
	}
	return widen(text, sents, before, best, maxChars), bestOff
}

// widen returns the sentences around sents[best] that fit in maxChars
// characters (before: runes ahead of each sentence, as snippet counts
// them), taken alternately after and before it, marked "…" where text
// goes on; the best sentence alone is cut to fit.
func widen(text string, sents [][2]int, before []int, best, maxChars int) string {
	first, last := best, best
	for i, j := best-1, best+1; ; i, j = i-1, j+1 {
		grew := false
		if j < len(sents) && before[j+1]-before[first] <= maxChars {
			last, grew = j, true
		}
		if i >= 0 && before[last+1]-before[i] <= maxChars {
			first, grew = i, true
		}
		if !grew {
			break
		}
	}
	lo, hi := sents[first][0], sents[last][1]
	pre, body, suf := "", text[lo:hi], ""
	if before[last+1]-before[first] > maxChars {
		body, suf = cutRunes(body, maxChars-1), "…"
	}
	if lo > 0 {
		pre, body = "…", strings.TrimLeftFunc(body, unicode.IsSpace)
	}
	endsInEllipsis := strings.HasSuffix(body, "…") || (body == "" && pre != "")
	if suf == "" && hi < len(text) && !endsInEllipsis {
		suf = "…"
	}
	return strings.TrimSpace(pre + body + suf) // one allocation
}

// wordAt returns the end of the word (a run of letters and digits) that
// starts at i and whether it is all ASCII, or, when s[i:] starts with a
// rune that is neither, minus that rune's length.
func wordAt(s string, i int) (end int, ascii bool) {
	j := i + 1
	if c := s[i]; c < utf8.RuneSelf {
		if j = asciiWordEnd(s, j); j == len(s) || s[j] < utf8.RuneSelf {
			return j, true // the common case: an ASCII word
		}
	} else if size := wordRuneLen(s[i:]); size < 0 {
		return size, false
	} else {
		j = i + size
	}
	ascii = s[i] < utf8.RuneSelf
	for {
		j = asciiWordEnd(s, j)
		if j == len(s) || s[j] < utf8.RuneSelf {
			return j, ascii
		}
		size := wordRuneLen(s[j:])
		if size < 0 {
			return j, ascii
		}
		j, ascii = j+size, false
	}
}

// asciiWord[c]: the byte c is an ASCII letter or digit (false from
// utf8.RuneSelf up, so scanning a run of them needs one lookup a byte).
var asciiWord = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
	}
	return t
}()

// match marks and counts the terms word (lower case) starts with that seen
// does not hold yet.
func (ts *termSet) match(w string, seen []bool) int {
	n := 0
	for t, stem := range ts.stems {
		if !seen[t] && (strings.HasPrefix(w, stem) || (ts.ys[t] != "" && strings.HasPrefix(w, ts.ys[t])) ||
			ts.infix[t] && strings.Contains(w, stem)) {
			seen[t] = true
			n++
		}
	}
	return n
}

// matchASCII is match for an ASCII word of any case: what match returns for
// strings.ToLower(w), without the copy. Only the stems that start with the
// word's first letter are compared (while there are at most 64).
func (ts *termSet) matchASCII(w string, seen []bool) int {
	n := 0
	if len(ts.stems) > 64 {
		for t := range ts.stems {
			n += ts.matchTermASCII(w, t, seen)
		}
		return n
	}
	for m := ts.byFirst[w[0]|0x20]; m != 0; m &= m - 1 {
		n += ts.matchTermASCII(w, bits.TrailingZeros64(m), seen)
	}
	return n
}

// matchTermASCII marks term t and returns 1 when the ASCII word w starts
// with it and seen does not hold it yet; else it returns 0.
func (ts *termSet) matchTermASCII(w string, t int, seen []bool) int {
	if !seen[t] && (hasFoldPrefix(w, ts.stems[t]) || (ts.ys[t] != "" && hasFoldPrefix(w, ts.ys[t]))) {
		seen[t] = true
		return 1
	}
	return 0
}

// hasFoldPrefix reports whether the ASCII word w, lower-cased, starts with
// prefix.
func hasFoldPrefix(w, prefix string) bool {
	if len(w) < len(prefix) {
		return false
	}
	for k := range len(prefix) {
		c := w[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[k] {
			return false
		}
	}
	return true
}

// wordRuneLen is the byte length of the rune s starts with when it is a
// letter or digit, and minus that length when it is not. ASCII is decided
// without decoding.
func wordRuneLen(s string) int {
	if c := s[0]; c < utf8.RuneSelf {
		if 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' {
			return 1
		}
		return -1
	}
	r, size := utf8.DecodeRuneInString(s)
	if isWordRune(r) {
		return size
	}
	return -size
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

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
