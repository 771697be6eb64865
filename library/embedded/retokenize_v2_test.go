package embedded_test

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestTokenizerV2FileUpgraded: a library file written by mcpvec before
// stop words were indexed (testdata/lexical-tok-v2.db.gz: `mcpvec ingest`
// of five text files by the binary of main at 493a319) is re-indexed
// once when opened: its lexical index is saved with the current word
// rules, and a query of function words and one content word ("Can I
// delete") finds the passage that has them first, above one that says
// delete more often.
func TestTokenizerV2FileUpgraded(t *testing.T) {
	db := openGzipLibrary(t, "testdata/lexical-tok-v2.db.gz")
	if v := lexicalVersion(t, db); v != "lexical-tok-v2" {
		t.Fatalf("fixture's stored version = %q, want lexical-tok-v2", v)
	}
	lib, log := openLogged(t, db, library.Options{})
	if got := log.String(); !strings.Contains(got, "re-indexing the library's words once") || !strings.Contains(got, "passages=5") {
		t.Errorf("open log = %q, want the re-indexing said with its passage count", got)
	}
	resp, err := lib.Search(context.Background(), "Can I delete", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) == 0 {
		t.Fatalf("search: %+v, %v", resp, err)
	}
	if got, want := resp.Results[0].Title, "delete.txt"; got != want {
		t.Errorf("first result of \"Can I delete\" = %q, want %q", got, want)
	}
	if err := lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := lexicalVersion(t, db); v != analysis.TokenizerVersion {
		t.Errorf("stored version after open = %q, want %q", v, analysis.TokenizerVersion)
	}
	if _, again := openLogged(t, db, library.Options{}); strings.Contains(again.String(), "re-index") {
		t.Errorf("second open re-indexed again: %q", again.String())
	}
}

// openGzipLibrary opens a copy of the gzipped library file at path in
// t's temporary directory (closed with t).
func openGzipLibrary(t *testing.T, path string) *store.DB {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "library.db")
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
