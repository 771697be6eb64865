package lexical

import (
	"slices"

	"github.com/mcpvec/mcpvec/analysis"
)

// Filter limits a search to some passages. Implementations must be safe
// for concurrent use and must not block.
type Filter interface {
	// Allow reports whether passage id may be returned.
	Allow(id uint64) bool
	// Few returns the allowed ids when there are few of them (ascending),
	// else nil; up to fewMax of them are scored one by one.
	Few() []uint64
}

// fewMax is the number of allowed passages up to which SearchTokensIn
// scores each from its own terms (~1 µs a passage) rather than reading the
// lists (1-3 ms for a query at 100k passages).
const fewMax = 4096

// SearchIn is Search returning only passages f allows (SearchTokensIn).
// It is safe for concurrent use.
func (ix *Index) SearchIn(query string, k int, f Filter) []Result {
	return ix.SearchTokensIn(analysis.Tokenize(query), k, f)
}

// SearchTokensIn is SearchTokens returning only passages f allows: the k
// best of those, with the scores Search gives them. With few allowed
// passages (f.Few, at most fewMax) each is scored from its own terms; otherwise the lists
// are read as Search reads them and a passage f refuses is never admitted
// to the results, nor to the partial sums the pruned search bounds its
// stops by (bestPartial, candidates), so its bounds hold as they do for
// Search (TestFilteredMatchesExhaustive). A nil f is SearchTokens. It is
// safe for concurrent use.
func (ix *Index) SearchTokensIn(tokens []string, k int, f Filter) []Result {
	qtf, _ := ix.countTerms(tokens)
	return ix.searchCountedIn(qtf, k, f)
}

// scoreFew scores the live passages of ids one by one from their packed
// terms (rescore from the first cursor) and keeps the k best. Callers hold
// the read lock and have opened sc's cursors.
func (ix *Index) scoreFew(sc *scratch, bm bm25, k int, ids []uint64) []Result {
	sc.accFor(len(ix.docs))
	n := len(sc.cursors)
	sc.contrib = slices.Grow(sc.contrib[:0], n)[:n]
	clear(sc.contrib)
	sc.remaining(0)
	sc.heap = sc.heap[:0]
	for _, id := range ids {
		s, ok := ix.slots()[id]
		if !ok {
			continue
		}
		if r := ix.rescore(sc, s, bm, 0); r.Score > 0 {
			sc.offer(r, k)
		}
	}
	return sc.heap.sorted()
}

// allowFunc returns the test of a slot against f, nil for no filter.
func (ix *Index) allowFunc(f Filter) func(s uint32) bool {
	if f == nil {
		return nil
	}
	docs := ix.docs
	return func(s uint32) bool { return f.Allow(docs[s].id) }
}
