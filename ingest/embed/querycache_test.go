package embed

import "testing"

func TestQueryCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	c := NewQueryCache(2)
	c.Put("a", []float32{1})
	c.Put("b", []float32{2})
	if _, ok := c.Get("a"); !ok { // a is now most recent
		t.Fatal("a missing")
	}
	c.Put("c", []float32{3}) // evicts b
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if v, ok := c.Get("a"); !ok || v[0] != 1 {
		t.Errorf("a = %v, %v", v, ok)
	}
	v, _ := c.Get("c")
	v[0] = 99 // the caller's copy
	if v, _ := c.Get("c"); v[0] != 3 {
		t.Errorf("a caller changed the cached vector: %v", v)
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	off := NewQueryCache(-1)
	off.Put("x", []float32{1})
	if _, ok := off.Get("x"); ok || off.Len() != 0 {
		t.Error("disabled cache returned a value")
	}
	var none *QueryCache
	none.Put("x", []float32{1})
	if _, ok := none.Get("x"); ok || none.Len() != 0 {
		t.Error("nil cache returned a value")
	}
}
