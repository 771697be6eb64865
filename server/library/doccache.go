package library

import (
	"sync"

	"github.com/mcpvec/mcpvec/store"
)

// docCacheMax bounds the cached records; a full cache starts over.
const docCacheMax = 4096

// docCache holds document records without their text for the query path,
// which reads the same documents for result after result: a record (with
// its page starts and passage list, thousands of numbers for a book) is
// decoded from the store once instead of once per result. Every write
// clears it (embedded.Apply). The records it returns are shared and must
// not be modified. It is safe for concurrent use.
type docCache struct {
	mu  sync.Mutex
	gen uint64 // bumped by every clear
	m   map[string]*store.Document
}

// get returns the record of id, from the cache or from load. A record
// loaded while a write cleared the cache is returned but not kept, so the
// cache never holds one older than the last write.
func (c *docCache) get(id string, load func(string) (*store.Document, error)) (*store.Document, error) {
	c.mu.Lock()
	if d, ok := c.m[id]; ok {
		c.mu.Unlock()
		return d, nil
	}
	gen := c.gen
	c.mu.Unlock()
	d, err := load(id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if c.m == nil || len(c.m) >= docCacheMax {
			c.m = make(map[string]*store.Document)
		}
		c.m[id] = d
	}
	return d, nil
}

// clear forgets every record; call it after a write to the store.
func (c *docCache) clear() {
	c.mu.Lock()
	c.gen++
	c.m = nil
	c.mu.Unlock()
}
