package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestSearchLanguagesEndToEnd: through the CLI, Chinese passages
// (manpages-zh 1.6.4.0-1, ls(1) and cp(1)) are found by a two-character
// word and by one character, and a German passage (manpages-de 4.18.1-1,
// rm(1)) by a German query without stop words.
func TestSearchLanguagesEndToEnd(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest",
		writeFile(t, filepath.Join(dir, "ls.txt"), "列出指定文件（默认为当前目录）的信息。如果既没有指定任何一个选项，也没有指定排序方式，则按字母排序项目。\n"),
		writeFile(t, filepath.Join(dir, "cp.txt"), "将来源复制到目的地，或将多个来源复制到目录。\n"),
		writeFile(t, filepath.Join(dir, "rm.txt"), "Diese Handbuchseite dokumentiert die GNU-Version von rm. rm entfernt jede angegebene Datei. Standardmäßig werden keine Verzeichnisse entfernt.\n"),
		writeFile(t, filepath.Join(dir, "en.txt"), "The cats are attached to their homes.\n"))
	for _, c := range []struct{ query, want string }{
		{"排序", "ls.txt"}, {"复制", "cp.txt"}, {"序", "ls.txt"}, {"Verzeichnis entfernen", "rm.txt"}, {"cat homes", "en.txt"},
	} {
		r := mcpvecEnv(t, db, nil, "search", "--json", "-k", "1", c.query)
		var sr searchJSON
		if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil || r.code != 0 || len(sr.Results) != 1 {
			t.Fatalf("search %q: %v, exit %d, %s %s", c.query, err, r.code, r.stdout, r.stderr)
		}
		if got := sr.Results[0].Title; !strings.Contains(got, strings.TrimSuffix(c.want, ".txt")) {
			t.Errorf("search %q: top %q (%q), want %s", c.query, got, sr.Results[0].Text, c.want)
		}
	}
}

// TestOldLibraryReindexedByCLI: a library whose words were indexed by the
// previous rules (lexical-tok-v1) is re-indexed by the first command that
// opens it, which says so on stderr; a search, which only reads, says the
// next write saves it; after an ingest, a search re-indexes nothing.
func TestOldLibraryReindexedByCLI(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest", writeFile(t, filepath.Join(dir, "cp.txt"), "将来源复制到目的地，或将多个来源复制到目录。\n"))
	s, err := store.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxLexical)
		if err != nil {
			return err
		}
		return kv.Put([]byte("\x00lexical-meta"), []byte("lexical-tok-v1"))
	})
	if cerr := s.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	r := mcpvecEnv(t, db, nil, "search", "目录")
	if r.code != 0 || !strings.Contains(r.stderr, "re-indexing the library's words once") || !strings.Contains(r.stdout, "复制到目录") {
		t.Fatalf("first search: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the next command that writes to it (ingest, sync, serve) saves them") {
		t.Errorf("first search, read-only: stderr %q, want the hint that a write saves the re-index", r.stderr)
	}
	mustRun(t, db, "ingest", writeFile(t, filepath.Join(dir, "ls.txt"), "列出指定文件（默认为当前目录）的信息。\n"))
	if r := mcpvecEnv(t, db, nil, "search", "目录"); r.code != 0 || strings.Contains(r.stderr, "re-index") {
		t.Errorf("search after an ingest: exit %d, stderr %q, want no re-index", r.code, r.stderr)
	}
}
