package lexical

import (
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// TestSearchTokensMatchesSearch: searching a query's tokens gives what
// searching its text gives, k ≤ 0 included, and leaves the tokens alone,
// for a query without identifiers (whose words only a search that has the
// text weighs less, query_parts.go).
func TestSearchTokensMatchesSearch(t *testing.T) {
	ix := newTiny(t)
	for _, q := range []string{"are cats attached to their homes", "feline territory", "bz2 decompress", "the", ""} {
		for _, k := range []int{-1, 0, 1, 3, 10, 60} {
			tokens := analysis.Tokenize(q)
			before := slices.Clone(tokens)
			got, want := ix.SearchTokens(tokens, k), ix.Search(q, k)
			if !slices.Equal(got, want) {
				t.Errorf("SearchTokens(Tokenize(%q), %d) = %v, Search says %v", q, k, got, want)
			}
			if !slices.Equal(tokens, before) {
				t.Errorf("SearchTokens changed its tokens: %q, was %q", tokens, before)
			}
		}
	}
}
