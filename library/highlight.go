package library

import (
	"slices"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// Span is a piece of a text; Mark says it is a word the query matches.
type Span struct {
	Text string
	Mark bool
}

// Highlight cuts text into spans, marking each word whose index terms (as
// analysis.Tokenize makes them, stemmed like the BM25 index's) include one
// of query's, so "cats" marks "cat" and "Cat's". Words are runs of letters,
// digits and combining marks; scripts written without spaces are matched a
// character at a time, as the index holds them. Adjacent unmarked text is
// one span; the spans joined are text. A query without index terms marks
// nothing. Highlight is safe for concurrent use.
func Highlight(text, query string) []Span {
	return highlight(text, queryTerms(query))
}

// HighlightTerms is Highlight for the index terms a search looked for
// (SearchResponse.Terms) rather than a query's own. It is safe for
// concurrent use.
func HighlightTerms(text string, terms []string) []Span {
	return highlight(text, termsOf(terms))
}

func highlight(text string, terms *termSet) []Span {
	if len(terms.stems) == 0 {
		return []Span{{Text: text}}
	}
	var out []Span
	plain := 0 // start of the unmarked text not yet in out
	for i := 0; i < len(text); {
		end := wordEnd(text, i)
		if end == i {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		if terms.holdsAny(analysis.Tokenize(text[i:end])) {
			if plain < i {
				out = append(out, Span{Text: text[plain:i]})
			}
			out = append(out, Span{Text: text[i:end], Mark: true})
			plain = end
		}
		i = end
	}
	if plain < len(text) || len(out) == 0 {
		out = append(out, Span{Text: text[plain:]})
	}
	return out
}

// wordEnd returns the end of the word at text[i:]: one character of a
// script written without spaces, or a run of other letters, digits and
// combining marks (analysis.IsWordRune); i when text[i:] starts with none
// of these.
func wordEnd(text string, i int) int {
	j := i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		unspaced := analysis.IsUnspaced(r)
		if !unspaced && !analysis.IsWordRune(r) {
			break
		}
		if unspaced {
			if j == i {
				j += size
			}
			break
		}
		j += size
	}
	return j
}

// holdsAny reports whether any of tokens is one of ts's stems.
func (ts *termSet) holdsAny(tokens []string) bool {
	for _, t := range tokens {
		if slices.Contains(ts.stems, t) {
			return true
		}
	}
	return false
}
