package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokenizerVersion names the rules of Tokenize. index/lexical stores it
// with persisted term records; when it changes, its Load re-tokenises every
// passage. v2: CJK runs as bigrams, languages other than English stemmed.
// v3: stop words stored as terms of their own (TokenizeStored).
const TokenizerVersion = "lexical-tok-v3"

// AnalyzerName names Tokenize's terms where a store outside index/lexical
// keeps them: a Weaviate collection records it when created and refuses to
// be opened with terms of another name, rather than being searched wrongly.
// It is what every mcpvec command opens collections with; a change to the
// rules of Tokenize needs a new name as it needs a new TokenizerVersion.
const AnalyzerName = "mcpvec-lexical-2"

// CompatibleAnalyzers name the earlier versions of Tokenize whose terms
// AnalyzerName's still match in the main: v1 differs only in CJK runs
// (characters, not bigrams) and in stemming other languages than English
// as English. A Weaviate collection indexed with one is opened with a
// warning instead of refused.
var CompatibleAnalyzers = []string{"mcpvec-lexical-1"}

// maxTokenBytes caps one token; longer runs (base64, hashes) are cut so a
// single blob cannot bloat the dictionary.
const maxTokenBytes = 64

// Tokenize splits text into index terms by the rules of its language
// (Detect): TokenizeAs(text, Detect(text)). It is safe for concurrent use
// and never returns an error; empty input gives nil.
func Tokenize(text string) []string { return TokenizeAs(text, Detect(text)) }

// TokenizeAs splits text into index terms: Unicode letters and digits,
// case folded, lang's stop words dropped, words stemmed with lang's
// Snowball stemmer (English: the English stopwords and stemmer, on plain
// ASCII words only, as before languages were told apart). Compound spans
// such as BZ2_bzDecompressInit, --leak-check=full, v1.2.3 or IL-6 yield
// their parts (split at punctuation and camelCase) and, additionally, the
// whole span and its sub-spans, so both an exact identifier and its words
// match. Runs of Han, Hiragana, Katakana, Hangul, Thai and similar scripts
// written without spaces yield overlapping character bigrams and each
// character (appendRun). TokenizeAs is safe for concurrent use; empty
// input gives nil.
func TokenizeAs(text string, lang Language) []string {
	return tokenizeAs(text, lang, nil)
}

// TokenizeStored is TokenizeAs keeping lang's stop words as terms of their
// own (lower-cased, not stemmed) instead of dropping them, and counting
// them: the terms index/lexical stores (TokenizerVersion v3), so that a
// query may score its function words ("Can I delete") while most do not.
// stops is how many of terms are stop words. It is safe for concurrent
// use; empty input gives nil, 0.
func TokenizeStored(text string, lang Language) (terms []string, stops int) {
	var s stopCount
	terms = tokenizeAs(text, lang, &s)
	return terms, s.n
}

// stopCount counts the stop words tokenizeAs kept; a nil *stopCount drops
// them.
type stopCount struct{ n int }

func tokenizeAs(text string, lang Language, keep *stopCount) []string {
	var out []string
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isUnspaced(r):
			end := unspacedEnd(text, i)
			out = appendRun(out, text[i:end])
			i = end
		case isWordRune(r):
			end := spanEnd(text, i)
			out = appendSpan(out, text[i:end], lang, keep)
			i = end
		default:
			i += size
		}
	}
	return out
}

// IsWordRune reports whether r can be part of a word Tokenize reads: a
// letter, a digit or a non-spacing mark.
func IsWordRune(r rune) bool { return isWordRune(r) }

// isWordRune reports whether r can be part of a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isJoiner reports punctuation that keeps a compound span together when it
// sits between word characters.
func isJoiner(r rune) bool {
	switch r {
	case '_', '-', '.', '+', ':', '/', '=', '@', '#', ',', '\'', '\u2019', '\u2010', '\u2011':
		return true
	}
	return false
}

// spanEnd returns the end of the compound span starting at text[start], which
// is a word rune. Joiners are included only when word runes follow them, so
// trailing sentence punctuation is not part of the span; a comma joins only
// digits (1,000).
func spanEnd(text string, start int) int {
	i, end := start, start
	var prev rune
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if isWordRune(r) && !isUnspaced(r) {
			i += size
			end, prev = i, r
			continue
		}
		if !isJoiner(r) {
			break
		}
		j := i
		for j < len(text) {
			rj, sj := utf8.DecodeRuneInString(text[j:])
			if !isJoiner(rj) {
				break
			}
			j += sj
		}
		next, _ := utf8.DecodeRuneInString(text[j:])
		if j >= len(text) || !isWordRune(next) || isUnspaced(next) {
			break
		}
		if r == ',' && (j-i != 1 || !unicode.IsDigit(prev) || !unicode.IsDigit(next)) {
			break
		}
		i = j
	}
	return end
}

// appendSpan emits the terms of one compound span.
func appendSpan(out []string, span string, lang Language, keep *stopCount) []string {
	if isNumber(span) {
		return appendTerm(out, strings.ReplaceAll(span, ",", ""))
	}
	if isPlainWord(span) {
		// What appendSplit makes of it, without splitting: one segment of
		// one word (most spans; splitting allocates for every span).
		return appendNorm(out, span, lang, keep)
	}
	return appendSplit(out, span, lang, keep)
}

// appendSplit emits the terms of a span that is not a number: its words
// (split at joiners, hyphens and camelCase), each segment of more than one
// word whole (unless it is the span), and the span whole when it has more
// than one word.
func appendSplit(out []string, span string, lang Language, keep *stopCount) []string {
	span = strings.ReplaceAll(span, ",", "")
	lower := strings.ToLower(span)
	parts := 0
	for _, seg := range splitSegments(span) {
		words := splitWords(seg)
		for _, w := range words {
			out = appendNorm(out, w, lang, keep)
		}
		parts += len(words)
		if len(words) > 1 && seg != span {
			out = appendTerm(out, wholeForm(strings.ToLower(seg), lang))
		}
	}
	if parts > 1 {
		out = appendTerm(out, wholeForm(lower, lang))
	}
	return out
}

// isPlainWord reports spans of ASCII letters and digits with no capital
// after the first byte: no joiner, hyphen or camelCase boundary splits
// them.
func isPlainWord(span string) bool {
	for i := 0; i < len(span); i++ {
		c := span[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i == 0 && 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// appendTerm adds t, cut to maxTokenBytes at a rune boundary.
func appendTerm(out []string, t string) []string {
	if len(t) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut]
	}
	if t == "" {
		return out
	}
	return append(out, t)
}

// isNumber reports spans made only of digits, '.' and ',' (0.05, 1,000).
func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

// splitSegments splits a span at joiners other than hyphens, so
// "leak-check=full" gives "leak-check" and "full".
func splitSegments(span string) []string {
	return strings.FieldsFunc(span, func(r rune) bool { return isJoiner(r) && !isHyphen(r) })
}

func isHyphen(r rune) bool { return r == '-' || r == '\u2010' || r == '\u2011' }

// splitWords splits a segment at hyphens and camelCase boundaries
// (bzDecompressInit → bz Decompress Init; HTTPServer → HTTP Server).
func splitWords(seg string) []string {
	var words []string
	for _, piece := range strings.FieldsFunc(seg, isHyphen) {
		words = appendCamel(words, piece)
	}
	return words
}

func appendCamel(words []string, s string) []string {
	rs := []rune(s)
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	return append(words, string(rs[start:]))
}

// keepSurface makes a word of another language than English give its
// lower-cased form beside its stem when they differ.
var keepSurface = true

// appendNorm appends the term of the word w (normWord), and its
// lower-cased form when keepSurface and it differs. A stop word is
// dropped, or with keep appended lower-cased and counted.
func appendNorm(out []string, w string, lang Language, keep *stopCount) []string {
	t := normWord(w, lang)
	if t == "" {
		if keep == nil || w == "" {
			return out
		}
		keep.n++
		return appendTerm(out, strings.ToLower(w))
	}
	out = appendTerm(out, t)
	if keepSurface && lang != English {
		if l := strings.ToLower(w); l != t {
			out = appendTerm(out, l)
		}
	}
	return out
}

// normWord folds case, drops lang's stopwords and stems plain words.
func normWord(w string, lang Language) string {
	w = strings.ToLower(w)
	if lang == English {
		if isEnglishStopWord(w) {
			return ""
		}
		if isASCIILetters(w) && len(w) > 2 {
			return stemEnglish(w)
		}
		return w
	}
	if isStopWordOf(w, lang) {
		return ""
	}
	return stemOther(w, lang)
}

// wholeForm normalises a compound for exact matching: hyphens dropped (so
// cross-linking, crosslinking and IL-6/IL6 meet) and plain words stemmed.
func wholeForm(s string, lang Language) string {
	s = strings.Map(func(r rune) rune {
		if isHyphen(r) {
			return -1
		}
		return r
	}, s)
	if lang != English {
		return stemOther(s, lang)
	}
	if isASCIILetters(s) && len(s) > 2 {
		return stemEnglish(s)
	}
	return s
}

// stemOther stems w with lang's stemmer (not English) when it is a word
// of lang's script, letters only, of three characters or more.
func stemOther(w string, lang Language) string {
	n := 0
	for _, r := range w {
		if !unicode.IsLetter(r) || (lang == Russian) != unicode.Is(unicode.Cyrillic, r) {
			return w
		}
		n++
	}
	if n < 3 {
		return w
	}
	return stemAs(lang, w)
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
