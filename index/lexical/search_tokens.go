package lexical

// SearchTokens is Search for a query already split by Tokenize, so a caller
// that needs the query's terms itself (to find them in snippets) tokenises
// it once. tokens must be what Tokenize returned for the query; they are
// not modified. Every term weighs its count in the query: the words of an
// identifier weigh less only when the query's text is known (SearchQuery,
// query_parts.go). It is safe for concurrent use.
func (ix *Index) SearchTokens(tokens []string, k int) []Result {
	qtf, _ := ix.countTerms(tokens)
	return ix.searchCounted(qtf, k)
}
