package analysis

import (
	"fmt"
	"strings"

	"github.com/kljensen/snowball/english"
)

// EnglishRules are the stop words and the stemmer Tokenize applies to
// English words. The zero value is mcpvec's rules (the Snowball English
// stop words and stemmer), the only ones TokenizerVersion names; the
// others exist to be measured against them (cmd/mcpvec-eval -sweep).
type EnglishRules struct {
	Stop StopList
	Stem Stemmer
}

// StopList names a list of English stop words.
type StopList int

const (
	StopSnowball StopList = iota // the Snowball English list (about 170 words)
	StopShort                    // the 33 articles, pronouns and prepositions classic search engines drop
	StopNone                     // no word dropped
)

// Stemmer names an English stemmer.
type Stemmer int

const (
	StemSnowball Stemmer = iota // Snowball English (Porter2)
	StemPlural                  // plurals only: Harman's S-stemmer (-ies → -y, -es → -e, -s dropped)
	StemNone                    // words as they are
)

// englishRules are the rules in force; only SetEnglishRules changes them.
var englishRules EnglishRules

// shortStopWords are StopShort's words.
var shortStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		m[w] = true
	}
	return m
}()

// SetEnglishRules makes Tokenize and Stem apply r to English words from
// now on, for measuring: terms made by other rules than the zero value's
// are not what TokenizerVersion names, so an index must be built anew
// after a change. It is not safe to call while any goroutine tokenises.
// An unknown rule is an error.
func SetEnglishRules(r EnglishRules) error {
	if r.Stop < StopSnowball || r.Stop > StopNone || r.Stem < StemSnowball || r.Stem > StemNone {
		return fmt.Errorf("analysis: unknown English rules %+v", r)
	}
	englishRules = r
	return nil
}

// isEnglishStopWord reports whether Tokenize drops the lower-case word w
// of an English text.
func isEnglishStopWord(w string) bool {
	switch englishRules.Stop {
	case StopShort:
		return shortStopWords[w]
	case StopNone:
		return false
	}
	return english.IsStopWord(w)
}

// stemEnglish stems the lower-case plain word w by the rules in force.
func stemEnglish(w string) string {
	switch englishRules.Stem {
	case StemPlural:
		return stemPlural(w)
	case StemNone:
		return w
	}
	return stem(w)
}

// stemPlural is Harman's S-stemmer (1991): -ies → -y (not -eies, -aies),
// -es → -e (not -aes, -ees, -oes), -s dropped (not -us, -ss).
func stemPlural(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && !strings.HasSuffix(w, "eies") && !strings.HasSuffix(w, "aies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "aes") && !strings.HasSuffix(w, "ees") && !strings.HasSuffix(w, "oes"):
		return w[:len(w)-1]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}
