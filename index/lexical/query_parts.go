package lexical

// An identifier in a query (RefUnwindSafe, std::panic, sort_func) is
// searched by its whole and by each of its words, as passages index it
// (analysis.TokenizeAs), so a passage that holds it matches every one of
// those terms: counted in full, one identifier outweighs the query's other
// words as many times over as it has words, and a query of two or three
// identifiers counts as a long one. A query therefore gives the words of
// its code-like compounds (analysis.CompoundParts) compoundPartWeight of
// a term's weight, keeps the wholes in full, and leaves those words out
// where the short-query rule counts a query's terms (query_short.go), so
// an identifier counts by its wholes. Compounds joined by hyphens or
// apostrophes alone (floating-point, l'utente) are prose, and numbers tell
// identifiers apart (iso_8859-1): they keep their full weight. Real-text
// known-item queries, success@10 of 2,000 (with the reading of one-letter
// names, analysis.CountQueryStopWords): 20k 1389 → 1399, 100k 1171 → 1181,
// 1M 823 → 840 (Lucene 8.7: 1432, 1232, 878); SciFact, Cranfield and the
// long-PDF check not lower (docs/benchmarks/known-item.md#s26).
const compoundPartWeight = 0.5

// queryWeight is the weight in a query of a term it holds qf times, parts
// of them as a word of an identifier.
func queryWeight(qf uint32, parts int) float64 {
	if parts <= 0 {
		return float64(qf)
	}
	p := min(uint32(parts), qf)
	return float64(qf-p) + compoundPartWeight*float64(p)
}

// countParts is how many of a query's terms are words of its identifiers.
func countParts(parts map[string]int) int {
	n := 0
	for _, c := range parts {
		n += c
	}
	return n
}
