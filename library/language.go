package library

import (
	"sync"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// searchTerms is pooledTerms(tokens) for Search, knowing query unless it
// is long (searched by example): a non-English passage's snippet then
// reads the query in that language too (forText).
func searchTerms(query string, tokens []string, long bool) *termSet {
	ts := pooledTerms(tokens)
	if !long {
		ts.query = query
	}
	return ts
}

// forText returns the terms to find in text: ts itself, or, when text is
// in another language than English (analysis.Detect) and ts knows its
// query, ts's stems plus the query's as that language makes them, so a
// German passage's "Katzen" is found by the query's German stem "katz"
// whatever language the query was read as. The set is made once per
// language and released with ts. It is not safe for concurrent use.
func (ts *termSet) forText(text string) *termSet {
	if ts.query == "" {
		return ts
	}
	return ts.forLang(analysis.Detect(text))
}

// forLang is forText for a text of language l.
func (ts *termSet) forLang(l analysis.Language) *termSet {
	if ts.query == "" || l == analysis.English || int(l) >= len(ts.byLang) {
		return ts
	}
	if ts.byLang[l] == nil {
		x := termsOf(ts.stems)
		x.add(analysis.TokenizeAs(ts.query, l))
		ts.byLang[l] = x
	}
	return ts.byLang[l]
}

// passageLangs remembers analysis.Detect's answer for the passages
// searches have shown, by their text's key (length and hash, as results
// tells texts apart): a snippet needs its passage's language, and Detect
// reading up to 120 words of it was a third of a snippet's cost, paid
// again each time a passage comes back in another search. Detect is pure,
// so the answer kept is the answer; a passage whose text changes has
// another key. It holds at most langCacheSize answers (about 2 MB) and
// starts over when full. It is safe for concurrent use.
var passageLangs langCache

// langCacheSize bounds passageLangs.
const langCacheSize = 1 << 16

// langCache maps text keys to their languages.
type langCache struct {
	mu sync.RWMutex
	m  map[textKey]analysis.Language
}

// reset forgets every answer.
func (c *langCache) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// of returns analysis.Detect(text), where k is keyOf(text).
func (c *langCache) of(k textKey, text string) analysis.Language {
	c.mu.RLock()
	l, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return l
	}
	l = analysis.Detect(text)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= langCacheSize {
		c.m = make(map[textKey]analysis.Language, 1024)
	}
	c.m[k] = l
	c.mu.Unlock()
	return l
}

// markRun returns, for a run of unspaced characters (analysis.IsUnspaced),
// which of its characters the query's terms cover: both characters of
// each bigram that is one of ts's stems, or, when ts holds no bigram of
// such a script (a query of single characters), each character that is.
// The result holds one flag per character.
func (ts *termSet) markRun(run string) []bool {
	var starts []int
	for i := range run {
		starts = append(starts, i)
	}
	starts = append(starts, len(run))
	n := len(starts) - 1
	marks := make([]bool, n)
	bigrams := false
	for i := 0; i+1 < n; i++ {
		if ts.holds(run[starts[i]:starts[i+2]]) {
			marks[i], marks[i+1], bigrams = true, true, true
		}
	}
	if bigrams || ts.hasRunBigram() {
		return marks
	}
	for i := range n {
		marks[i] = ts.holds(run[starts[i]:starts[i+1]])
	}
	return marks
}

// holds reports whether t is one of ts's stems.
func (ts *termSet) holds(t string) bool {
	for _, s := range ts.stems {
		if s == t {
			return true
		}
	}
	return false
}

// hasRunBigram reports whether one of ts's stems is a bigram of unspaced
// characters.
func (ts *termSet) hasRunBigram() bool {
	for i, s := range ts.stems {
		if ts.infix[i] && utf8.RuneCountInString(s) == 2 {
			return true
		}
	}
	return false
}
