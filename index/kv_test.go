package index_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// TestDeleteMatching deletes exactly the keys the predicate accepts. The
// test KV zeroes each key it hands ForEach once the callback returns (a
// bbolt key is valid only during the call), so keys kept uncopied would
// delete the wrong records.
func TestDeleteMatching(t *testing.T) {
	kv := indextest.NewKV()
	for _, k := range []string{"a1", "a2", "b1", "b2", "c"} {
		if err := kv.Put([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := index.DeleteMatching(kv, func(k []byte) bool { return bytes.HasPrefix(k, []byte("a")) || string(k) == "c" }); err != nil {
		t.Fatal(err)
	}
	var left []string
	for k := range kv.M {
		left = append(left, k)
	}
	slices.Sort(left)
	if got, want := strings.Join(left, ","), "b1,b2"; got != want {
		t.Fatalf("keys left %s, want %s", got, want)
	}
}
