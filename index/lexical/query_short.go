package lexical

import "github.com/mcpvec/mcpvec/analysis"

// A short query — a heading, a title, a few words — says much with its
// function words ("Can I delete", "Under the same terms as Perl itself"),
// and the passage it names is found more often when they are scored and
// term frequency saturates sooner (a lower k1); a longer query (a claim,
// a question) ranks better without them and with the index's k1
// (docs/benchmarks/known-item.md, session 22). Passages' stop words are
// stored as terms (analysis.TokenizeStored) but not counted in their
// length, so a longer query scores exactly as it did before they were.
const (
	// shortQueryTerms is the most terms other than stop words a short
	// query has.
	shortQueryTerms = 4
	// shortQueryK1 is BM25's k1 for a short query.
	shortQueryK1 = 0.9
	// shortQueryB is BM25's b for a short query: a heading or a title
	// names a passage whatever its length, so a long passage is
	// discounted less than for a longer query (the index's b, 0.75).
	shortQueryB = 0.6
)

// shortQueries turns the short-query rule on; this package's tests turn it
// off (main_test.go), so that their reference scorers, at the index's k1
// and without stop words, rank what Search ranks.
var shortQueries = true

// shortQuery returns the terms to search a query with and whether it is
// short (then scored with shortQueryK1 and shortQueryB). tokens are the
// query's terms without stop words, read in lang, parts of them words of
// its identifiers (query_parts.go), which are not counted; a short query
// (at most shortQueryTerms others) that has stop words of lang gets them
// added. It is safe for concurrent use.
func (ix *Index) shortQuery(text string, tokens []string, lang analysis.Language, parts int) ([]string, bool) {
	if !shortQueries || len(tokens)-parts > shortQueryTerms || len(text) > shortQueryBytes {
		return tokens, false
	}
	all, stops := analysis.TokenizeStored(text, lang)
	if n := len(all) - stops; n-parts > shortQueryTerms {
		return tokens, false
	} else if stops == 0 || n != len(tokens) {
		// No stop word, or tokens are not text's terms in lang (a
		// caller's own split): search them as they are.
		return tokens, true
	}
	return ix.rareStopWords(all, lang), true
}

// stopWordShare is the largest share of the passages a short query's
// stop word may be in to be scored: one in nearly every passage ("the",
// "of") has an idf near zero, changes almost no ranking, and its list is
// the longest to read.
const stopWordShare = 0.25

// rareStopWords returns terms without the stop words of lang that more
// than stopWordShare of the passages hold. terms may be modified.
func (ix *Index) rareStopWords(terms []string, lang analysis.Language) []string {
	_, n := ix.DocFreq("")
	out := terms[:0]
	for _, t := range terms {
		if analysis.IsStopWordOf(t, lang) {
			if df, _ := ix.DocFreq(t); float64(df) > stopWordShare*float64(n) {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}
