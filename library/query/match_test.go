package query

import (
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// TestDatePrefersCreated: after: and before: compare the document's own
// creation date when it has one, else the file's modification time, else
// the ingest time.
func TestDatePrefersCreated(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	created, mod, ingested := day("2019-05-01"), day("2024-06-01"), day("2025-01-01")
	for _, c := range []struct {
		name   string
		doc    store.Document
		want   time.Time
		after  string // a query that must keep the document
		before string // a query that must drop it
	}{
		{"created", store.Document{Created: created, ModTime: mod, IngestedAt: ingested}, created, "after:2019 before:2020", "after:2024"},
		{"mtime", store.Document{ModTime: mod, IngestedAt: ingested}, mod, "after:2024 before:2024-07", "before:2020"},
		{"ingested", store.Document{IngestedAt: ingested}, ingested, "after:2025", "before:2024-07"},
	} {
		if got := Date(&c.doc); !got.Equal(c.want) {
			t.Errorf("%s: Date %v, want %v", c.name, got, c.want)
		}
		if q := Parse(c.after); !q.MatchDocument(&c.doc) {
			t.Errorf("%s: %q dropped the document", c.name, c.after)
		}
		if q := Parse(c.before); q.MatchDocument(&c.doc) {
			t.Errorf("%s: %q kept the document", c.name, c.before)
		}
		q := Parse(c.before)
		for _, k := range q.Kinds() {
			if k.match(&c.doc) {
				t.Errorf("%s: kind %s of %q matched", c.name, k.Name, c.before)
			}
		}
	}
}
