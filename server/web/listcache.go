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

// listCache keeps the library page's filtered and sorted rows for what
// they were made from (listSource: the store's rows at a version, or the
// list library.Library.Listing returns, the same slice until a write), so
// that paging through a large library, or viewing it again, neither
// decodes nor sorts its documents: at 250,000 documents a view took about
// 2 s. A write starts it over. Rows are shared: a page copies those it
// shows before changing them. It is safe for concurrent use.
type listCache struct {
	mu  sync.Mutex
	src listSource // what the entries were made from
	m   map[listKey]*listing
}

// listSource is what a listing was made from: the library's rows at
// version (library.Library.Rows), or, for a library that keeps none, the
// document list docs.
type listSource struct {
	rows    bool
	version uint64
	docs    []*store.Document
}

func (a listSource) same(b listSource) bool {
	if a.rows || b.rows {
		return a.rows == b.rows && a.version == b.version
	}
	return sameList(a.docs, b.docs)
}

// get returns the listing for k made from src, made by build when not
// kept; build reports what it made it from (rows read at a later version
// than src are kept for that one). Concurrent views of the same key may
// both build it; one is kept. Errors are build's.
func (c *listCache) get(src listSource, k listKey, build func() (*listing, listSource, error)) (*listing, error) {
	c.mu.Lock()
	if !c.src.same(src) {
		c.src, c.m = src, nil
	}
	if l, ok := c.m[k]; ok {
		c.mu.Unlock()
		return l, nil
	}
	c.mu.Unlock()
	if listBuilt != nil {
		listBuilt()
	}
	l, built, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.src.same(built) {
		c.src, c.m = built, nil
	}
	if c.m == nil || len(c.m) >= listCacheSize {
		c.m = make(map[listKey]*listing)
	}
	c.m[k] = l
	return l, nil
}

// listBuilt, set by tests, runs whenever a listing is built.
var listBuilt func()

// sameList reports whether a and b are the same list (the same backing
// array and length), not merely equal ones: the cache holds a, so its
// array cannot be reused for another list while it is compared.
func sameList(a, b []*store.Document) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
