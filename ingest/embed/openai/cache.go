package openai

import (
	"container/list"
	"sync"
)

// lru is a small mutex-guarded LRU from query text to vector. Values
// are copied in and out so callers cannot corrupt the cache.
type lru struct {
	mu    sync.Mutex
	cap   int
	order *list.List // front = most recent; values are *lruEntry
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	vec []float32
}

func newLRU(capacity int) *lru {
	return &lru{cap: capacity, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru) get(key string) ([]float32, bool) {
	if c == nil || c.cap <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return append([]float32(nil), el.Value.(*lruEntry).vec...), true
}

func (c *lru) put(key string, vec []float32) {
	if c == nil || c.cap <= 0 {
		return
	}
	v := append([]float32(nil), vec...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*lruEntry).vec = v
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry{key: key, vec: v})
	for c.order.Len() > c.cap {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruEntry).key)
	}
}
