package analysis

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language names the rules Tokenize stems and drops stop words with.
// English, the zero value, is what every text got before languages were
// told apart, and what a text gets unless Detect finds another language
// clearly.
type Language uint8

// The languages Tokenize tells apart: each has a Snowball stemmer and a
// list of frequent function words (stop words) that Detect counts.
const (
	English Language = iota
	German
	French
	Spanish
	Italian
	Portuguese
	Dutch
	Russian
	numLanguages
)

var languageCodes = [numLanguages]string{"en", "de", "fr", "es", "it", "pt", "nl", "ru"}

// String returns the language's ISO 639-1 code.
func (l Language) String() string {
	if l < numLanguages {
		return languageCodes[l]
	}
	return "en"
}

// Languages returns every language Tokenize tells apart, English first.
func Languages() []Language {
	out := make([]Language, numLanguages)
	for i := range out {
		out[i] = Language(i)
	}
	return out
}

// ParseLanguage returns the language of an ISO 639-1 code ("de"), or false.
func ParseLanguage(code string) (Language, bool) {
	for i, c := range languageCodes {
		if c == code {
			return Language(i), true
		}
	}
	return English, false
}

// detectWords is how many words Detect reads: a passage's first few
// sentences tell its language as well as the whole of it.
const detectWords = 120

// Detect returns the language of text by counting, among its first
// detectWords words, the stop words of each language: another language
// than English is chosen when at least three of its stop words are seen
// and they outnumber English's more than twice (so English prose, whose
// "the", "of" and "and" are everywhere, is never read as another
// language) and Polish's (Polish has no stemmer: it gets English's rules
// rather than Portuguese's); Russian when most words are Cyrillic and two of its stop
// words are seen. Short texts with few stop words, such as most queries,
// are English. Detect is cheap (no allocation), pure and safe for
// concurrent use.
func Detect(text string) Language {
	c := countStopWords(text, true)
	return decide(c.counts, c.words, c.cyrillic)
}

// StopWordCounts is what CountStopWords saw of a text.
type StopWordCounts struct {
	counts          [numLanguages + 1]int
	words, cyrillic int
}

// Of returns how many of the words counted are stop words of l.
func (c StopWordCounts) Of(l Language) int {
	if l >= numLanguages {
		return 0
	}
	return c.counts[l]
}

// CountStopWords counts, among text's first detectWords words, the stop
// words of each language (a word may be one of several languages'), as
// Detect does. It is pure and safe for concurrent use.
func CountStopWords(text string) StopWordCounts { return countStopWords(text, false) }

// countStopWords is CountStopWords; with settled it may stop reading once
// the words left cannot change decide's answer from English (see
// englishSettled), which for English prose is after two thirds of
// detectWords: snippets call Detect on every passage a search shows.
func countStopWords(text string, settled bool) StopWordCounts {
	var counts [numLanguages + 1]int
	var buf [16]byte
	words, cyrillic := 0, 0
	for i := 0; i < len(text) && words < detectWords; {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isLetter(r) {
			i += size
			continue
		}
		j, n := lowerWord(text, i, &buf)
		if r >= utf8.RuneSelf && unicode.Is(unicode.Cyrillic, r) {
			cyrillic++
		}
		if n > 0 && mayBeStopWord(buf[:n]) {
			for m := stopLangs[string(buf[:n])]; m != 0; m &= m - 1 {
				counts[bits.TrailingZeros16(m)]++
			}
		}
		words++
		i = j
		if settled && words&7 == 0 && englishSettled(&counts, words, cyrillic) {
			break
		}
	}
	return StopWordCounts{counts: counts, words: words, cyrillic: cyrillic}
}

// englishSettled reports whether decide answers English whatever the
// rest of a text holds, once words words of it (cyrillic of them
// Cyrillic) gave counts, detectWords at most being read: no more words
// can make most of them Cyrillic, nor lift a stemmed language's count
// above twice English's (which only grows).
func englishSettled(counts *[numLanguages + 1]int, words, cyrillic int) bool {
	left := detectWords - words
	if 2*cyrillic+left >= words {
		return false
	}
	for l := German; l < Russian; l++ {
		if counts[l]+left > 2*counts[English] {
			return false
		}
	}
	return true
}

// isLetter is unicode.IsLetter with ASCII answered without a table walk.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

// lowerWord reads the word of letters starting at text[i] into buf,
// lowercased, and returns where it ends and its length in buf: -1 when it
// does not fit (longer than any stop word). ASCII letters, most of most
// passages, take one comparison each: CountStopWords runs on every
// passage a search cuts a snippet from.
func lowerWord(text string, i int, buf *[16]byte) (end, n int) {
	j := i
	for j < len(text) {
		if c := text[j]; c < utf8.RuneSelf {
			if lc := c | 0x20; lc < 'a' || lc > 'z' {
				break
			} else if n >= 0 && n < len(buf) {
				buf[n] = lc
				n++
			} else {
				n = -1
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsLetter(r) {
			break
		}
		if lr := unicode.ToLower(r); n >= 0 && n+utf8.RuneLen(lr) <= len(buf) {
			n += utf8.EncodeRune(buf[n:], lr)
		} else {
			n = -1 // longer than any stop word
		}
		j += size
	}
	return j, n
}

// decide picks Detect's language from the stop-word counts.
func decide(counts [numLanguages + 1]int, words, cyrillic int) Language {
	if 2*cyrillic > words {
		if counts[Russian] >= 2 {
			return Russian
		}
		return English
	}
	best := English
	for l := German; l < Russian; l++ {
		if counts[l] > counts[best] || best == English && counts[l] > 0 {
			best = l
		}
	}
	if best != English && counts[best] >= 3 && counts[best] > 2*counts[English] && counts[best] > counts[unstemmed] {
		return best
	}
	return English
}

// CountQueryStopWords counts, among text's first detectWords words, the
// stop words of each language as CountStopWords does, for telling which
// language a short query is in, with two differences: English's are all
// the words Tokenize drops from an English text (not Detect's short list,
// which leaves out "a", "can" or "when", so "This shows a reference" held
// more Portuguese stop words than English), and only words standing
// alone count, not the letters of an identifier, a file name or an
// address (the c of fanotify_example.c is not French), nor a single
// letter that is not written as a word (letterAsWord: the y of
// "(y: B)" is no Spanish "and"). It is pure and safe for concurrent use.
func CountQueryStopWords(text string) StopWordCounts {
	var c StopWordCounts
	for i := 0; i < len(text) && c.words < detectWords; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) || isUnspaced(r) {
			i += size
			continue
		}
		start, end := i, spanEnd(text, i)
		span := text[i:end]
		i = end
		if strings.ContainsFunc(span, isCodeJoiner) || size == len(span) && !letterAsWord(text, start, end) {
			c.words++
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(span), isJoiner) {
			c.words++
			for m := stopLangs[w]; m != 0; m &= m - 1 {
				if l := bits.TrailingZeros16(m); l != int(English) {
					c.counts[l]++
				}
			}
			if isEnglishStopWord(w) {
				c.counts[English]++
			}
		}
	}
	return c
}

// letterAsWord reports whether the one-letter span text[start:end] is
// written as a word of prose: lower-case between spaces or the text's
// ends, capitalised at the text's start, or before an apostrophe (French
// l', d', c'). A letter against code punctuation — c(Module, (y: B),
// __d), <T> — or a capital inside the text (typedef C, impl<A> A where)
// names a variable or a type parameter, not a stop word of some language.
func letterAsWord(text string, start, end int) bool {
	next, _ := utf8.DecodeRuneInString(text[end:])
	if end < len(text) && (next == '\'' || next == '\u2019') {
		return true
	}
	if end < len(text) && !unicode.IsSpace(next) {
		return false
	}
	if start == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:start])
	r, _ := utf8.DecodeRuneInString(text[start:])
	return unicode.IsSpace(prev) && unicode.IsLower(r)
}

// isCodeJoiner reports the joiners that make a span an identifier, a path,
// an address or a number rather than words (hyphens and apostrophes join
// words: auto-detect, l'option).
func isCodeJoiner(r rune) bool { return isJoiner(r) && !isHyphen(r) && r != '\'' && r != '\u2019' }
