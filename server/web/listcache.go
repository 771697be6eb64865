package web

import (
	"sync"

	"github.com/mcpvec/mcpvec/store"
)

// listKey is what a library page's rows depend on besides the documents.
type listKey struct{ q, typ, sort, dir string }

// listing is one filtered and sorted list of rows, with the totals over
// every document.
type listing struct {
	rows                []docRow
	types               []string
	documents, passages int
	pages               int
	bytes               int64
}

// listCacheSize bounds the orders and filters kept for one document list.
const listCacheSize = 16

// listCache keeps the library page's filtered and sorted rows for the
// document list they were made from (library.Library.Listing returns the
// same slice until a write changes it), so that paging through a large
// library, or viewing it again, neither decodes nor sorts its documents:
// at 250,000 documents a view took about 2 s. A new list, after any write,
// starts it over. Rows are shared: a page copies those it shows before
// changing them. It is safe for concurrent use.
type listCache struct {
	mu   sync.Mutex
	docs []*store.Document // the list the entries were made from
	m    map[listKey]*listing
}

// get returns the listing of docs for k, made by build when not kept.
// Concurrent views of the same key may both build it; one is kept.
func (c *listCache) get(docs []*store.Document, k listKey, build func() *listing) *listing {
	c.mu.Lock()
	if !sameList(c.docs, docs) {
		c.docs, c.m = docs, nil
	}
	if l, ok := c.m[k]; ok {
		c.mu.Unlock()
		return l
	}
	c.mu.Unlock()
	if listBuilt != nil {
		listBuilt()
	}
	l := build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if sameList(c.docs, docs) {
		if c.m == nil || len(c.m) >= listCacheSize {
			c.m = make(map[listKey]*listing)
		}
		c.m[k] = l
	}
	return l
}

// listBuilt, set by tests, runs whenever a listing is built.
var listBuilt func()

// sameList reports whether a and b are the same list (the same backing
// array and length), not merely equal ones: the cache holds a, so its
// array cannot be reused for another list while it is compared.
func sameList(a, b []*store.Document) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
