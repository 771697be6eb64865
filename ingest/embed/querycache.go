package embed

import (
	"container/list"
	"sync"
)

// QueryCache keeps the vectors of the most recent search queries, for a
// network embedder whose query costs a round trip: a least-recently-used
// map from query text to vector. Vectors are copied in and out, so callers
// cannot corrupt it. Safe for concurrent use; a nil or zero-capacity cache
// holds nothing.
type QueryCache struct {
	mu    sync.Mutex
	cap   int
	order *list.List // front = most recent; values are *cacheEntry
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	vec []float32
}

// NewQueryCache returns a cache of capacity vectors (<= 0: none kept).
func NewQueryCache(capacity int) *QueryCache {
	return &QueryCache{cap: capacity, order: list.New(), items: make(map[string]*list.Element)}
}

// Get returns a copy of query's vector, if cached.
func (c *QueryCache) Get(query string) ([]float32, bool) {
	if c == nil || c.cap <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[query]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return append([]float32(nil), el.Value.(*cacheEntry).vec...), true
}

// Put caches a copy of vec as query's vector, evicting the least recently
// used beyond the capacity.
func (c *QueryCache) Put(query string, vec []float32) {
	if c == nil || c.cap <= 0 {
		return
	}
	v := append([]float32(nil), vec...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[query]; ok {
		el.Value.(*cacheEntry).vec = v
		c.order.MoveToFront(el)
		return
	}
	c.items[query] = c.order.PushFront(&cacheEntry{key: query, vec: v})
	for c.order.Len() > c.cap {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// Len is the number of cached vectors.
func (c *QueryCache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
