package analysis

import (
	"unicode"
	"unicode/utf8"
)

// runUnigrams makes appendRun emit each character of a run beside its
// bigrams, so a query of one character finds the passages holding it
// (docs/benchmarks/languages.md measured the choice).
const runUnigrams = true

// IsUnspaced reports whether r is of a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer,
// Myanmar), whose runs Tokenize cuts into character bigrams.
func IsUnspaced(r rune) bool { return isUnspaced(r) }

// isUnspaced reports scripts that do not separate words with spaces (and
// Korean, whose spaced words carry particles), plus the prolonged sound
// mark (ー) that Katakana words use.
func isUnspaced(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return r == 0x30FC || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// unspacedEnd returns the end of the run of unspaced characters that
// starts at text[start].
func unspacedEnd(text string, start int) int {
	i := start
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isUnspaced(r) {
			break
		}
		i += size
	}
	return i
}

// appendRun emits the terms of a run of unspaced characters: each pair of
// adjacent characters (東京都 → 東京, 京都), the way peers index Chinese,
// Japanese and Korean without a dictionary, and, with runUnigrams, each
// character before the pair it starts (東, 東京, 京, 京都, 都). A run of
// one character is that character.
func appendRun(out []string, run string) []string {
	if _, size := utf8.DecodeRuneInString(run); size == len(run) {
		return append(out, run)
	}
	for i := 0; i < len(run); {
		_, n := utf8.DecodeRuneInString(run[i:])
		j := i + n
		if runUnigrams {
			out = append(out, run[i:j])
		}
		if j < len(run) {
			_, m := utf8.DecodeRuneInString(run[j:])
			out = append(out, run[i:j+m])
		}
		i = j
	}
	return out
}
