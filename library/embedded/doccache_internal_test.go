package embedded

import (
	"fmt"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// TestDocCacheBounded: however large the records, the cache holds at most
// docCacheWeight numbers, and a record larger than that is not kept.
func TestDocCacheBounded(t *testing.T) {
	var c docCache
	load := func(id string) (*store.Document, error) {
		return &store.Document{ID: id, PageStarts: make([]int, 100_000), Chunks: make([]uint64, 100_000)}, nil
	}
	for i := range 100 {
		if _, err := c.get(fmt.Sprint(i), load); err != nil {
			t.Fatal(err)
		}
		if c.weight > docCacheWeight {
			t.Fatalf("after %d records the cache weighs %d, over %d", i+1, c.weight, docCacheWeight)
		}
	}
	huge := func(id string) (*store.Document, error) {
		return &store.Document{ID: id, Chunks: make([]uint64, docCacheWeight+1)}, nil
	}
	if d, err := c.get("huge", huge); err != nil || d == nil {
		t.Fatalf("huge record: %v, %v", d, err)
	}
	if _, ok := c.m["huge"]; ok {
		t.Fatal("a record over the whole bound was cached")
	}
}
