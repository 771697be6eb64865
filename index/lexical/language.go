package lexical

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// expandMax is the longest query, in tokens, that SearchQuery may read in
// another language than analysis.Detect tells: a short query says too
// little for Detect (most are read as English), while a long one is
// detected reliably.
const expandMax = 32

// shortQueryBytes bounds the text of a short query too: a long query
// searched by its most informative terms (library's query by example)
// has few tokens but a long text, which Detect reads well.
const shortQueryBytes = 1024

// languageTerm is the term Add gives a passage analysis.Detect reads as
// another language than English: its document frequency tells which
// languages the index holds, and it is saved and loaded with the other
// terms. No query can make it (Tokenize makes no term with a NUL byte).
func languageTerm(l analysis.Language) string { return "\x00lang:" + l.String() }

// tokenize is what Add indexes of text: its terms in its language, with
// its stop words (analysis.TokenizeStored), and the language's term when
// it is not English. length is the passage's length for BM25: its terms
// without the stop words and the language's term.
func tokenize(text string) (toks []string, length uint32) {
	lang := analysis.Detect(text)
	toks, stops := analysis.TokenizeStored(text, lang)
	length = uint32(len(toks) - stops)
	if lang != analysis.English {
		toks = append(toks, languageTerm(lang))
	}
	return toks, length
}

// Languages returns the languages other than English whose passages the
// index holds. It is safe for concurrent use.
func (ix *Index) Languages() []analysis.Language {
	held, _ := ix.languages()
	return held
}

// languageTerms holds languageTerm of every language, made once: a
// search asks for each of them (languages).
var languageTerms = func() []string {
	out := make([]string, len(analysis.Languages()))
	for i, l := range analysis.Languages() {
		out[i] = languageTerm(l)
	}
	return out
}()

// languages returns the languages other than English whose passages the
// index holds and the one most of its passages are in, English on a tie,
// under one read lock.
func (ix *Index) languages() (held []analysis.Language, dominant analysis.Language) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	english, most := ix.alive, 0
	for _, l := range analysis.Languages()[1:] {
		df := 0
		if id, ok := ix.termIDs[languageTerms[l]]; ok {
			df = int(ix.df[id])
		}
		if df == 0 {
			continue
		}
		held, english = append(held, l), english-df
		if df > most {
			dominant, most = l, df
		}
	}
	if english >= most {
		dominant = analysis.English
	}
	return held, dominant
}

// SearchQuery is SearchTokens for the query text, whose tokens (nil: it
// tokenises text) are analysis.Tokenize's. When the index holds passages
// in other languages than English and the query is short (at most
// expandMax tokens, too short for analysis.Detect), the query is read in
// one language the index holds (reading): a German query "Verzeichnisse
// entfernen" is stemmed as German in a German library. An index of
// English passages alone searches the tokens as they are. A short query
// (at most shortQueryTerms terms besides its stop words) is also scored
// by its stop words, with BM25's k1 and b at shortQueryK1 and shortQueryB
// (query_short.go). It
// is safe for concurrent use.
func (ix *Index) SearchQuery(text string, tokens []string, k int) []Result {
	return ix.SearchQueryIn(text, tokens, k, nil)
}

// SearchQueryIn is SearchQuery returning only passages f allows, as
// SearchTokensIn does; a nil f is SearchQuery. It is safe for concurrent
// use.
func (ix *Index) SearchQueryIn(text string, tokens []string, k int, f Filter) []Result {
	if tokens == nil {
		tokens = analysis.Tokenize(text)
	}
	lang := analysis.English
	if len(tokens) <= expandMax && len(text) <= shortQueryBytes {
		if lang = analysis.Detect(text); lang == analysis.English {
			if held, dominant := ix.languages(); len(held) > 0 {
				tokens, lang = ix.reading(text, tokens, held, dominant)
			}
		}
	}
	parts := analysis.CompoundParts(text, lang)
	tokens, short := ix.shortQuery(text, tokens, lang, countParts(parts))
	qtf, _ := ix.countTerms(queryRunTerms(tokens))
	return ix.searchCountedAs(qtf, parts, k, f, short)
}

// queryRunTerms drops from a query's tokens the single characters of runs
// of CJK and similar scripts that also gave bigrams: passages are indexed
// with both (so a query of one character finds them), but a query of a
// word ranks better by its bigrams alone (docs/benchmarks/languages.md).
// tokens is not modified; the result may share its memory only when
// nothing is dropped.
func queryRunTerms(tokens []string) []string {
	bigrams := false
	for _, t := range tokens {
		if r, size := utf8.DecodeRuneInString(t); size < len(t) && analysis.IsUnspaced(r) {
			bigrams = true
			break
		}
	}
	if !bigrams {
		return tokens
	}
	out := make([]string, 0, len(tokens))
	for i, t := range tokens {
		r, size := utf8.DecodeRuneInString(t)
		if size == len(t) && analysis.IsUnspaced(r) && partOfBigram(tokens, i) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// partOfBigram reports whether the character tokens[i] is next to a
// bigram of its run (appendRun emits each character beside the bigrams it
// is part of).
func partOfBigram(tokens []string, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(tokens) && utf8.RuneCountInString(tokens[j]) == 2 && strings.Contains(tokens[j], tokens[i]) {
			if r, _ := utf8.DecodeRuneInString(tokens[j]); analysis.IsUnspaced(r) {
				return true
			}
		}
	}
	return false
}

// reading returns the terms of a short query (tokens: its English
// reading) in the language, among English and held, whose stop words it
// has most of, the index's dominant language on a tie (a query without
// stop words), counted by analysis.CountQueryStopWords. When none of
// those terms is in the index, the reading with the most terms that are
// wins instead (a German query in a library mostly of English).
func (ix *Index) reading(text string, tokens []string, held []analysis.Language, dominant analysis.Language) ([]string, analysis.Language) {
	c := analysis.CountQueryStopWords(text)
	langs := append(held, analysis.English)
	first := dominant
	for _, l := range langs {
		if c.Of(l) > c.Of(first) {
			first = l
		}
	}
	best, lang := tokens, analysis.English
	if first != analysis.English {
		best, lang = analysis.TokenizeAs(text, first), first
	}
	if ix.known(best) > 0 {
		return best, lang
	}
	most := 0
	for _, l := range langs {
		toks := tokens
		if l != analysis.English {
			toks = analysis.TokenizeAs(text, l)
		}
		if n := ix.known(toks); n > most {
			best, most, lang = toks, n, l
		}
	}
	return best, lang
}

// known returns how many of terms the index holds, under one read lock.
func (ix *Index) known(terms []string) int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := 0
	for _, t := range terms {
		if id, ok := ix.termIDs[t]; ok && ix.df[id] > 0 {
			n++
		}
	}
	return n
}
