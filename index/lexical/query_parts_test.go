package lexical

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// TestQueryIdentifierWeighsAsAWord: a query naming an identifier and a
// type ranks the passage about both above one that repeats the identifier
// alone; with every word of the identifier weighed in full, its four
// terms (ref, unwind, safe, refunwindsaf) outweigh the type's.
func TestQueryIdentifierWeighsAsAWord(t *testing.T) {
	ix := New(DefaultConfig())
	ix.Add(1, "RefUnwindSafe is implemented for Mutex, RwLock, Arc, Rc and RefCell; they are RefUnwindSafe types.")
	ix.Add(2, "FromIter: an async iterator made from an iterator. Auto traits: Send, Sync, Unpin, UnwindSafe, RefUnwindSafe.")
	for i := range 40 {
		ix.Add(uint64(10+i), fmt.Sprintf("passage %d holds an iterator, a safe reference and a function number %d", i, i))
	}
	q := "RefUnwindSafe FromIter"
	if rs := ix.SearchQuery(q, nil, 2); len(rs) == 0 || rs[0].ID != 2 {
		t.Errorf("SearchQuery(%q) = %v, want passage 2 (both names) first", q, rs)
	}
	// A query without identifiers scores as it did: every term in full.
	if got, want := ix.SearchQuery("safe reference iterator", nil, 3), ix.SearchTokens(analysis.Tokenize("safe reference iterator"), 3); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a query of plain words: SearchQuery %v, SearchTokens %v", got, want)
	}
}

// TestShortQueryCountsIdentifiersAsWords: "impl RefUnwindSafe for
// FromIter" is three words and a stop word, a short query (its stop word
// scored), although it gives eight terms.
func TestShortQueryCountsIdentifiersAsWords(t *testing.T) {
	withShortQueries(t)
	ix := New(DefaultConfig())
	ix.Add(1, "impl RefUnwindSafe for FromIter")
	for i := range 10 {
		ix.Add(uint64(2+i), fmt.Sprintf("Send and Sync %d", i))
	}
	text := "impl RefUnwindSafe for FromIter"
	toks := analysis.Tokenize(text)
	parts := countParts(analysis.CompoundParts(text, analysis.English))
	if len(toks)-parts > shortQueryTerms || len(toks) <= shortQueryTerms {
		t.Fatalf("%q: %d terms, %d of them words of identifiers: not the case this test is about", text, len(toks), parts)
	}
	got, short := ix.shortQuery(text, toks, analysis.English, parts)
	if !short || !slices.Contains(got, "for") {
		t.Errorf("shortQuery(%q) = %v, short %v; want short, with its stop word", text, got, short)
	}
	long := "impl RefUnwindSafe for FromIter where Send Sync"
	if _, short := ix.shortQuery(long, analysis.Tokenize(long), analysis.English, countParts(analysis.CompoundParts(long, analysis.English))); short {
		t.Errorf("shortQuery(%q): short, want long (five words and more)", long)
	}
}
