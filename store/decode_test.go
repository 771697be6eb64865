package store

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestDecodeDocumentsSplitsAndReportsInOrder: records decoded on several
// CPUs come back in key order and equal to one-by-one decoding; a bad
// record fails the whole list with the first bad record's key.
func TestDecodeDocumentsSplitsAndReportsInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	db := &DB{path: "test.db"}
	var keys, vals [][]byte
	for i := range 9000 {
		d := Document{ID: fmt.Sprintf("doc%05d", i), Title: strings.Repeat("t", i%50), Pages: i % 7, Chunks: []uint64{uint64(i), uint64(i) + 1}}
		v, err := json.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		keys, vals = append(keys, []byte(d.ID)), append(vals, v)
	}
	docs, err := db.decodeDocuments(keys, vals)
	if err != nil || len(docs) != len(vals) {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	for i, d := range docs {
		if d.ID != string(keys[i]) || d.Pages != i%7 || len(d.Chunks) != 2 || d.Chunks[0] != uint64(i) {
			t.Fatalf("document %d decoded as %+v", i, d)
		}
	}
	vals[7777], vals[2222] = []byte("{not json"), []byte(`{"pages":"many"}`)
	if _, err := db.decodeDocuments(keys, vals); err == nil || !strings.Contains(err.Error(), "doc02222") {
		t.Fatalf("with bad records 2222 and 7777: %v, want the error of doc02222", err)
	}
}
