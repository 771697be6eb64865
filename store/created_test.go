package store_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// TestDocumentCreated: a document's own creation date is stored and read
// back; a document without one writes no "created" key, and a record
// written before the field existed reads with a zero Created.
func TestDocumentCreated(t *testing.T) {
	db := MustOpenDB(t)
	d, c, v := testDoc("dated", "/docs/dated.pdf", "Some text.")
	created := time.Date(2019, 1, 2, 2, 4, 5, 0, time.UTC)
	d.Created = created
	if _, err := db.PutDocument(d, c, v, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.DocumentInfo("dated")
	if err != nil || !got.Created.Equal(created) {
		t.Fatalf("stored created %v, %v; want %v", got, err, created)
	}
	b, err := json.Marshal(&store.Document{ID: "undated"})
	if err != nil || strings.Contains(string(b), "created") {
		t.Fatalf("undated record %s, %v: want no created key", b, err)
	}
	var old store.Document
	if err := json.Unmarshal([]byte(`{"id":"old","title":"t","mod_time":"2024-01-01T00:00:00Z","ingested_at":"2024-02-01T00:00:00Z"}`), &old); err != nil || !old.Created.IsZero() {
		t.Fatalf("old record: created %v, %v; want zero", old.Created, err)
	}
}
