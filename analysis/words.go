package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Words splits text into lower-case runs of letters and digits, without
// English stopwords and without runs longer than 64 bytes: the words of
// the offline hash embedder (ingest/embed), simpler than Tokenize's terms.
// Identifiers fall apart at punctuation (BZ2_bzDecompress → bz2,
// bzdecompress). A run of a script written without spaces (IsUnspaced)
// gives its overlapping character bigrams, as in Tokenize, or itself when
// it is one character. Hashed vectors are built from these words, so a
// change to this rule must change that embedder's model name. Words is
// safe for concurrent use.
func Words(text string) []string {
	return words(text, true)
}

// WordsWhole is Words as it was before unspaced runs were cut into
// bigrams: such a run stays one word. The hash embedder keeps it for
// libraries built with that rule. It is safe for concurrent use.
func WordsWhole(text string) []string {
	return words(text, false)
}

func words(text string, bigrams bool) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	if bigrams && slices.ContainsFunc(fields, hasUnspaced) {
		var out []string // bigrams may outnumber the fields
		for _, f := range fields {
			out = appendWord(out, f, true)
		}
		return out
	}
	out := fields[:0]
	for _, f := range fields {
		out = appendWord(out, f, false)
	}
	return out
}

// appendWord appends the words of the field f: itself lower-cased unless
// it is a stopword or too long, or, with bigrams, the bigrams of its
// unspaced runs and the words of the rest.
func appendWord(out []string, f string, bigrams bool) []string {
	if bigrams && hasUnspaced(f) {
		for i := 0; i < len(f); {
			r, _ := utf8.DecodeRuneInString(f[i:])
			end := unspacedEnd(f, i)
			if !isUnspaced(r) {
				end = len(f)
				if k := strings.IndexFunc(f[i:], isUnspaced); k >= 0 {
					end = i + k
				}
				out = appendWord(out, f[i:end], false)
			} else {
				out = appendBigrams(out, f[i:end])
			}
			i = end
		}
		return out
	}
	f = strings.ToLower(f)
	if len(f) > 64 || english.IsStopWord(f) {
		return out
	}
	return append(out, f)
}

// appendBigrams appends the overlapping character bigrams of an unspaced
// run, or the run when it is one character.
func appendBigrams(out []string, run string) []string {
	if _, size := utf8.DecodeRuneInString(run); size == len(run) {
		return append(out, run)
	}
	for i := 0; i < len(run); {
		_, n := utf8.DecodeRuneInString(run[i:])
		if i+n == len(run) {
			break
		}
		_, m := utf8.DecodeRuneInString(run[i+n:])
		out = append(out, run[i:i+n+m])
		i += n
	}
	return out
}

// hasUnspaced reports whether s holds a character of a script written
// without spaces.
func hasUnspaced(s string) bool { return strings.IndexFunc(s, isUnspaced) >= 0 }
