package server

import (
	"fmt"
	"sync"
	"testing"
)

// TestSigCache checks that the cache returns what sign returns, signs an
// id once while it is held, starts over when full, and is safe for
// concurrent use (run with -race).
func TestSigCache(t *testing.T) {
	var c sigCache
	var mu sync.Mutex
	signed := map[string]int{}
	sign := func(id string) string {
		mu.Lock()
		signed[id]++
		mu.Unlock()
		return "sig-" + id
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 * sigCacheSize {
				id := fmt.Sprint((i + g) % (sigCacheSize + 10))
				if got := c.get(id, sign); got != "sig-"+id {
					t.Errorf("get(%q) = %q", id, got)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(c.m); n > sigCacheSize {
		t.Fatalf("cache holds %d entries, the bound is %d", n, sigCacheSize)
	}
	c = sigCache{}
	clear(signed)
	for range 3 {
		c.get("a", sign)
	}
	if signed["a"] != 1 {
		t.Fatalf("signed %d times, want once", signed["a"])
	}
}

// TestLinkSignatureCached checks that a cached signature is the one a link
// is verified with.
func TestLinkSignatureCached(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{LinkKey: []byte("k")})
	p := s.docLink("", "d1", 0)
	if p != s.docLink("", "d1", 0) || s.signature("d1") != s.sign("d1") {
		t.Fatal("cached signature differs")
	}
	if id, _, ok := s.verifyDocPath(p); !ok || id != "d1" {
		t.Fatalf("verifyDocPath(%q) = %q, %v", p, id, ok)
	}
}
