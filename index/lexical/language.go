package lexical

import "github.com/mcpvec/mcpvec/analysis"

// expandMax is the longest query, in tokens, that SearchQuery may read in
// another language than analysis.Detect tells: a short query says too
// little for Detect (most are read as English), while a long one is
// detected reliably.
const expandMax = 32

// languageTerm is the term Add gives a passage analysis.Detect reads as
// another language than English: its document frequency tells which
// languages the index holds, and it is saved and loaded with the other
// terms. No query can make it (Tokenize makes no term with a NUL byte).
func languageTerm(l analysis.Language) string { return "\x00lang:" + l.String() }

// tokenize is what Add indexes of text: its terms in its language, and
// the language's term when it is not English.
func tokenize(text string) []string {
	lang := analysis.Detect(text)
	toks := analysis.TokenizeAs(text, lang)
	if lang != analysis.English {
		toks = append(toks, languageTerm(lang))
	}
	return toks
}

// Languages returns the languages other than English whose passages the
// index holds. It is safe for concurrent use.
func (ix *Index) Languages() []analysis.Language {
	var out []analysis.Language
	for _, l := range analysis.Languages()[1:] {
		if df, _ := ix.DocFreq(languageTerm(l)); df > 0 {
			out = append(out, l)
		}
	}
	return out
}

// SearchQuery is SearchTokens for the query text, whose tokens (nil: it
// tokenises text) are analysis.Tokenize's. When the index holds passages
// in other languages than English and the query is short (at most
// expandMax tokens, too short for analysis.Detect), the query is read in
// the language the index holds whose stop words it has most of, the
// index's dominant language on a tie (queryLanguage): a German query
// "Verzeichnisse entfernen" is stemmed as German in a German library. An
// index of English passages alone searches the tokens as they are. It is
// safe for concurrent use.
func (ix *Index) SearchQuery(text string, tokens []string, k int) []Result {
	if tokens == nil {
		tokens = analysis.Tokenize(text)
	}
	if len(tokens) <= expandMax && analysis.Detect(text) == analysis.English {
		if l := ix.queryLanguage(text); l != analysis.English {
			tokens = analysis.TokenizeAs(text, l)
		}
	}
	qtf, _ := ix.countTerms(tokens)
	return ix.searchCounted(qtf, k)
}

// queryLanguage returns the language to read a short query in: among
// English and the languages the index holds, the one whose stop words
// the query has most of, the index's dominant language on a tie (a query
// without stop words).
func (ix *Index) queryLanguage(text string) analysis.Language {
	held := ix.Languages()
	if len(held) == 0 {
		return analysis.English
	}
	c := analysis.CountStopWords(text)
	best := ix.dominant()
	for _, l := range append(held, analysis.English) {
		if c.Of(l) > c.Of(best) {
			best = l
		}
	}
	return best
}

// dominant returns the language most of the index's passages are in.
func (ix *Index) dominant() analysis.Language {
	best, most := analysis.English, 0
	_, n := ix.DocFreq("")
	english := n
	for _, l := range analysis.Languages()[1:] {
		df, _ := ix.DocFreq(languageTerm(l))
		english -= df
		if df > most {
			best, most = l, df
		}
	}
	if english >= most {
		return analysis.English
	}
	return best
}
