package lexical

import "github.com/mcpvec/mcpvec/analysis"

// expandMax is the longest query, in tokens, that SearchQuery also reads
// in the index's other languages: a short query says too little for
// analysis.Detect (most are read as English), while a long one is
// detected reliably and would only add terms.
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
// tokenises text) are analysis.Tokenize's: a query of at most expandMax
// tokens also looks for its words as English and as each language the
// index holds would make them (a German query "Katzen" finds the German
// passages' "katz" as well as an English "katzen"). An index of English
// passages alone searches the tokens as they are. It is safe for
// concurrent use.
func (ix *Index) SearchQuery(text string, tokens []string, k int) []Result {
	if tokens == nil {
		tokens = analysis.Tokenize(text)
	}
	qtf, _ := ix.countTerms(tokens)
	if len(tokens) <= expandMax {
		if held := ix.Languages(); len(held) > 0 {
			for _, l := range append(held, analysis.English) {
				for _, t := range analysis.TokenizeAs(text, l) {
					if _, ok := qtf[t]; !ok {
						qtf[t] = 1
					}
				}
			}
		}
	}
	return ix.searchCounted(qtf, k)
}
