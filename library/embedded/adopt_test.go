package embedded_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestIngestReadsSegmentsInPlace: during a long ingest each BM25 segment a
// Save writes is then read in place in the file (not held in the heap),
// the next one is written from it, and searches return exactly what the
// same ingest returns holding everything in memory, and what the library
// returns when opened again.
func TestIngestReadsSegmentsInPlace(t *testing.T) {
	queries := []string{"harbour h17x", "lighthouse l3y quay", "tide t5w q100z", "passage 2500 bay"}
	var runs [2][][]lexical.Result
	for i, adopt := range []bool{false, true} {
		restore := embedded.SetAdopt(adopt, 100)
		path := filepath.Join(t.TempDir(), "lib.db")
		lib, db, lex := openForIngest(t, path)
		for d := range 12 {
			putPassages(t, lib, db, d, 64)
		}
		if err := lib.Fold(context.Background()); err != nil { // the first segment
			t.Fatal(err)
		}
		for d := 12; d < 23; d++ {
			putPassages(t, lib, db, d, 64)
		}
		if err := lib.Save(context.Background()); err != nil { // a second, written from the first
			t.Fatal(err)
		}
		if got := len(lex.InPlaceBytes()) > 0; got != adopt {
			t.Errorf("adopt %v: the index reads its segment in place: %v", adopt, got)
		}
		for _, q := range queries {
			runs[i] = append(runs[i], lex.Search(q, 10))
		}
		restore()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		_, db, lex = openForIngest(t, path)
		for j, q := range queries {
			if got, want := fmt.Sprint(lex.Search(q, 10)), fmt.Sprint(runs[i][j]); got != want {
				t.Errorf("adopt %v, reopened: %q = %s, want %s", adopt, q, got, want)
			}
		}
		db.Close()
	}
	if got, want := fmt.Sprint(runs[1]), fmt.Sprint(runs[0]); got != want || len(runs[0][0]) == 0 {
		t.Errorf("read in place: %s\nheld in memory: %s", got, want)
	}
}

// openForIngest opens the library at path as an ingest does: mapped with
// room for its growth.
func openForIngest(t *testing.T, path string) (*library.Library, *store.DB, *lexical.Index) {
	t.Helper()
	db, err := store.Open(path, &store.Options{NoSync: true, MapRoom: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lib, db, embedded.LexIndex(lib)
}
