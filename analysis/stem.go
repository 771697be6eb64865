package analysis

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// stemCacheMax bounds the stem cache: the first 16,384 distinct words
// stemmed (about 2 MB), after which further words are stemmed each time.
const stemCacheMax = 1 << 14

// stems memoises english.Stem, a pure function: Snowball stemming was half
// of tokenising a query, which serve does for every search, and the words
// of queries, like those of passages, repeat. Entries are never evicted,
// so the first words stemmed stay; that keeps the cache lock-free for
// readers (sync.Map) under concurrent searches and ingest.
var stems struct {
	m sync.Map // word → stem
	n atomic.Int64
}

// Stem returns the Snowball English stem of w when w is a plain word,
// lower-case ASCII letters only and longer than two, and w itself
// otherwise: what Tokenize does to such a word after folding case and
// dropping stop words. Stems come from a bounded cache shared with
// Tokenize. Stem is safe for concurrent use.
func Stem(w string) string {
	if isASCIILetters(w) && len(w) > 2 {
		return stem(w)
	}
	return w
}

// stem is english.Stem(w, true), through the cache. It is safe for
// concurrent use.
func stem(w string) string {
	if s, ok := stems.m.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, true)
	if stems.n.Load() < stemCacheMax && stems.n.Add(1) <= stemCacheMax {
		// w (and a stem that is w) may share the memory of a whole
		// passage (strings.ToLower returns its argument when nothing
		// changes): keep copies.
		stems.m.Store(strings.Clone(w), strings.Clone(s))
	}
	return s
}
