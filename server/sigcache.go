package server

import "sync"

// sigCacheSize bounds the signature cache: a few hundred kilobytes of
// document ids and signatures. A full cache starts over.
const sigCacheSize = 1 << 12

// sigCache remembers the link signatures of the documents search results
// cite, so a search signs each of its documents once per cache lifetime
// instead of computing an HMAC per result (two SHA-256 key setups and four
// compressions each). A signature depends only on the link key and the
// document id, so entries never go stale. It is safe for concurrent use;
// the zero value is ready.
type sigCache struct {
	mu sync.RWMutex
	m  map[string]string
}

// get returns the signature of docID, computing it with sign when absent.
func (c *sigCache) get(docID string, sign func(string) string) string {
	c.mu.RLock()
	sig, ok := c.m[docID]
	c.mu.RUnlock()
	if ok {
		return sig
	}
	sig = sign(docID)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= sigCacheSize {
		c.m = make(map[string]string)
	}
	c.m[docID] = sig
	c.mu.Unlock()
	return sig
}
