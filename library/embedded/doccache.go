package embedded

import (
	"sync"

	"github.com/mcpvec/mcpvec/store"
)

// docCacheWeight bounds the cache by the numbers its records hold (page
// starts and passage sequence numbers, 8 bytes each, plus one per record):
// about 8 MB, whatever the documents' sizes. A full cache starts over.
const docCacheWeight = 1 << 20

func docWeight(d *store.Document) int { return 1 + len(d.PageStarts) + len(d.Chunks) }

// docCache holds document records without their text for the query path,
// which reads the same documents for result after result: a record (with
// its page starts and passage list, thousands of numbers for a book) is
// decoded from the store once instead of once per result. Every write
// clears it (Backend.Apply). The records it returns are shared and must
// not be modified. It is safe for concurrent use.
type docCache struct {
	mu     sync.Mutex
	gen    uint64 // bumped by every clear
	m      map[string]*store.Document
	weight int // sum of docWeight over m
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
	if w := docWeight(d); c.gen == gen && w <= docCacheWeight {
		if c.m == nil || c.weight+w > docCacheWeight {
			c.m, c.weight = make(map[string]*store.Document), 0
		}
		if _, ok := c.m[id]; !ok {
			c.m[id] = d
			c.weight += w
		}
	}
	return d, nil
}

// clear forgets every record; call it after a write to the store.
func (c *docCache) clear() {
	c.mu.Lock()
	c.gen++
	c.m, c.weight = nil, 0
	c.mu.Unlock()
}

// version is the number of clears so far: it changes with every write.
func (c *docCache) version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}
