package embedded_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestOldTokenizerLibraryReindexedOnce: a library whose lexical index was
// saved by the previous word rules (lexical-tok-v1, which indexed Chinese
// one character per term) is re-indexed when opened, says so on its log,
// finds a Chinese word by its bigram, saves the index with the current
// rules, and the next open re-indexes nothing. The passage is from
// manpages-zh 1.6.4.0-1, cp(1).
func TestOldTokenizerLibraryReindexedOnce(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "zh", "cp.txt", "text/plain", "", "将来源复制到目的地，或将多个来源复制到目录。")
	f.Add(t, "en", "ls.txt", "text/plain", "", "List information about the files in the current directory.")
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	setLexicalVersion(t, f.DB, "lexical-tok-v1")

	lib, log := openLogged(t, f.DB, library.Options{})
	if got := log.String(); !strings.Contains(got, "re-indexing the library's words once") || !strings.Contains(got, "passages=2") {
		t.Errorf("open log = %q, want the re-indexing said with its passage count", got)
	}
	resp, err := lib.Search(context.Background(), "目录", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].DocID != "zh" {
		t.Errorf("search 目录 after re-index: %+v, %v", resp, err)
	}
	if v := lexicalVersion(t, f.DB); v != analysis.TokenizerVersion {
		t.Errorf("stored version after open = %q, want %q", v, analysis.TokenizerVersion)
	}
	_, again := openLogged(t, f.DB, library.Options{})
	if strings.Contains(again.String(), "re-index") {
		t.Errorf("second open re-indexed again: %q", again.String())
	}
}

// setLexicalVersion makes the saved lexical index look written by the
// word rules named v.
func setLexicalVersion(t *testing.T, db *store.DB, v string) {
	t.Helper()
	if err := db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxLexical)
		if err != nil {
			return err
		}
		return kv.Put([]byte("\x00lexical-meta"), []byte(v))
	}); err != nil {
		t.Fatal(err)
	}
}

func lexicalVersion(t *testing.T, db *store.DB) (v string) {
	t.Helper()
	if err := db.View(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxLexical)
		v = lexical.StoredVersion(kv)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return v
}
