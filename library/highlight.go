package library

import (
	"slices"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/library/query"
)

// Span is a piece of a text; Mark says it is a word the query matches.
type Span struct {
	Text string
	Mark bool
}

// Highlight cuts text into spans, marking each word whose index terms (as
// analysis.Tokenize makes them, stemmed like the BM25 index's, in text's
// language) include one of query's, so "cats" marks "cat" and "Cat's".
// Words are runs of letters, digits and combining marks; in scripts
// written without spaces a character is marked when it is part of a
// bigram of the query (or, for a query of single characters, is one).
// The query's operators (library/query) mark nothing. Adjacent unmarked
// text is one span; the spans joined are text. A query without index
// terms marks nothing. Highlight is safe for concurrent use.
func Highlight(text, q string) []Span {
	return highlight(text, queryTerms(query.Parse(q).Text)) // operators mark nothing
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
	lang := analysis.Detect(text)
	terms = terms.forLang(lang)
	h := highlighter{text: text}
	for i := 0; i < len(text); {
		end := wordEnd(text, i)
		switch {
		case end == i:
			_, size := utf8.DecodeRuneInString(text[i:])
			end = i + size
		case analysis.IsUnspaced(firstRune(text[i:])):
			h.markRun(i, end, terms.markRun(text[i:end]))
		case terms.holdsAny(analysis.TokenizeAs(text[i:end], lang)):
			h.mark(i, end)
		}
		i = end
	}
	return h.spans()
}

// highlighter collects Highlight's spans.
type highlighter struct {
	text  string
	out   []Span
	plain int // start of the unmarked text not yet in out
}

// mark marks text[i:end], joining it to a marked span that ends at i.
func (h *highlighter) mark(i, end int) {
	if h.plain < i {
		h.out = append(h.out, Span{Text: h.text[h.plain:i]})
	} else if n := len(h.out); n > 0 && h.out[n-1].Mark && h.plain == i && i > 0 && analysis.IsUnspaced(firstRune(h.text[i:])) {
		h.out[n-1].Text = h.text[i-len(h.out[n-1].Text) : end]
		h.plain = end
		return
	}
	h.out = append(h.out, Span{Text: h.text[i:end], Mark: true})
	h.plain = end
}

// markRun marks the characters of the run text[i:end] that marks flags.
func (h *highlighter) markRun(i, end int, marks []bool) {
	k := 0
	for j := i; j < end; k++ {
		_, size := utf8.DecodeRuneInString(h.text[j:])
		if marks[k] {
			h.mark(j, j+size)
		}
		j += size
	}
}

// spans returns the spans, the unmarked rest of text last.
func (h *highlighter) spans() []Span {
	if h.plain < len(h.text) || len(h.out) == 0 {
		h.out = append(h.out, Span{Text: h.text[h.plain:]})
	}
	return h.out
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// wordEnd returns the end of the word at text[i:]: a run of characters of
// scripts written without spaces, or a run of other letters, digits and
// combining marks (analysis.IsWordRune); i when text[i:] starts with none
// of these.
func wordEnd(text string, i int) int {
	j := i
	run := false
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		unspaced := analysis.IsUnspaced(r)
		if j == i {
			run = unspaced
		}
		if unspaced != run || !unspaced && !analysis.IsWordRune(r) {
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
