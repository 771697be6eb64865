package analysis

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Words splits text into lower-case runs of letters and digits, without
// English stopwords and without runs longer than 64 bytes: the words of
// the offline hash embedder (ingest/embed), simpler than Tokenize's terms.
// Identifiers fall apart at punctuation (BZ2_bzDecompress → bz2,
// bzdecompress). Hashed vectors are built from these words, so a change to
// this rule must change that embedder's model name. Words is safe for
// concurrent use.
func Words(text string) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	out := fields[:0]
	for _, f := range fields {
		f = strings.ToLower(f)
		if len(f) > 64 || english.IsStopWord(f) {
			continue
		}
		out = append(out, f)
	}
	return out
}
