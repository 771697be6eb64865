package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

func TestMoveDocumentKeepsPassagesAndFollowsPath(t *testing.T) {
	db := MustOpenDB(t)
	mustPut(t, db, "a", "/r/old.txt", "one passage", "two passage")
	mustPut(t, db, "b", "/r/new.txt", "other")
	mt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res, err := db.MoveDocument("a", "/r/new.txt", "https://x/new.txt", mt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Replaced) != 1 || res.Replaced[0] != "b" || len(res.Removed) != 1 {
		t.Fatalf("displaced document not reported: %+v", res)
	}
	got, err := db.DocumentByPath("/r/new.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "a" || got.SourceURL != "https://x/new.txt" || !got.ModTime.Equal(mt) || len(got.Chunks) != 2 {
		t.Fatalf("moved document = %+v", got)
	}
	if _, err := db.DocumentByPath("/r/old.txt"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old path still resolves: %v", err)
	}
	if _, err := db.MoveDocument("nope", "/x", "", mt); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
