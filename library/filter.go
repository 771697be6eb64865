package library

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// Filter is the set of passages a query's document operators (in:, path:,
// type:, after:, before: and their negations) allow, computed once per
// search from the document list; the backends rank only these (Query.Filter).
// It is read-only once made and safe for concurrent use.
type Filter struct {
	bits []uint64            // bit s set: passage s allowed (dense sequence numbers, the embedded store's)
	set  map[uint64]struct{} // or the allowed passages (sparse ones, Weaviate's)
	n    int                 // passages allowed
	few  []uint64            // the allowed passages, ascending, when n ≤ FewPassages; else nil
	docs []string            // the allowed documents' ids
}

// FewPassages is the number of allowed passages up to which a Filter lists
// them (Filter.Few), so that a retriever can score them one by one instead
// of walking its index; it lists them too while they are under
// 1/fewShare of the library, where a filtered HNSW walk costs more than
// scoring each (BM25 scores them one by one only up to FewPassages).
// Measured in docs/benchmarks/operators.md.
const (
	FewPassages = 4096
	fewShare    = 20
)

// Allow reports whether passage seq is allowed. A nil Filter allows all.
func (f *Filter) Allow(seq uint64) bool {
	if f == nil {
		return true
	}
	if f.set != nil {
		_, ok := f.set[seq]
		return ok
	}
	w := seq / 64
	return w < uint64(len(f.bits)) && f.bits[w]&(1<<(seq%64)) != 0
}

// Len is the number of passages allowed.
func (f *Filter) Len() int { return f.n }

// Few returns the allowed passages in ascending order when they are few
// (FewPassages), else nil. The slice must not be modified.
func (f *Filter) Few() []uint64 { return f.few }

// Documents returns the ids of the documents whose passages are allowed,
// for a backend that filters by document (Weaviate). It must not be
// modified.
func (f *Filter) Documents() []string { return f.docs }

// newFilter allows the passages of the documents kept, out of a library
// of total passages.
func newFilter(kept []*store.Document, total int) *Filter {
	f := &Filter{docs: make([]string, 0, len(kept))}
	var top uint64
	for _, d := range kept {
		f.docs = append(f.docs, d.ID)
		f.n += len(d.Chunks)
		for _, s := range d.Chunks {
			top = max(top, s)
		}
	}
	if f.n <= FewPassages || f.n*fewShare < total {
		f.few = make([]uint64, 0, f.n)
	}
	if dense := top/64 < uint64(f.n)+1<<16; dense {
		f.bits = make([]uint64, top/64+1)
	} else {
		f.set = make(map[uint64]struct{}, f.n)
	}
	for _, d := range kept {
		for _, s := range d.Chunks {
			if f.set != nil {
				f.set[s] = struct{}{}
			} else {
				f.bits[s/64] |= 1 << (s % 64)
			}
			if f.few != nil {
				f.few = append(f.few, s)
			}
		}
	}
	slices.Sort(f.few)
	return f
}

// DocumentsVersioner is a Backend that can tell when its document list may
// have changed: DocumentsVersion changes with every write. The Library then
// keeps the list between searches with operators and for Listing (the
// embedded backend reads the store's write generation). It must not wait
// for more than a short read.
type DocumentsVersioner interface {
	DocumentsVersion() uint64
}

// docListTTL is how long a document list is kept for a backend that cannot
// tell its version (Weaviate): operators may miss a document written less
// than this ago.
const docListTTL = 2 * time.Second

// docList keeps the library's document list for the filters of searches
// with operators. It is safe for concurrent use.
type docList struct {
	mu      sync.Mutex
	docs    []*store.Document
	version uint64
	at      time.Time
	ok      bool
}

// documents returns every document, without text, from the list kept when
// it is still current.
func (l *Library) documents(ctx context.Context) ([]*store.Document, error) {
	c := l.docList
	var version uint64
	if l.caps.version != nil {
		version = l.caps.version.DocumentsVersion()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && (l.caps.version != nil && c.version == version || l.caps.version == nil && time.Since(c.at) < docListTTL) {
		return c.docs, nil
	}
	docs, err := l.be.Documents(ctx) // the version was read first: a write meanwhile changes it again
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	c.docs, c.version, c.at, c.ok = docs, version, time.Now(), true
	return docs, nil
}
