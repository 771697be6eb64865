package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// tempLib returns a new temporary directory and the path of a library file
// in it, not yet created.
func tempLib(t *testing.T) (dir, db string) {
	dir = t.TempDir()
	return dir, filepath.Join(dir, "lib.db")
}

// libAndFolder returns, in a new temporary directory, the path of a library
// file not yet created and a new empty folder called name.
func libAndFolder(t *testing.T, name string) (db, folder string) {
	t.Helper()
	dir, db := tempLib(t)
	folder = filepath.Join(dir, name)
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	return db, folder
}

// writeFile writes text to path and returns path.
func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// infoJSON is what `mcpvec info --json` prints.
type infoJSON struct {
	Documents  int                 `json:"documents"`
	Passages   int                 `json:"passages"`
	Vectors    int                 `json:"vectors"`
	Consistent bool                `json:"consistent"`
	Problems   string              `json:"problems"`
	Embedder   *store.EmbedderInfo `json:"embedder"`
	Index      struct {
		VectorPassages  int  `json:"vector_passages"`
		VectorsDeferred bool `json:"vectors_deferred"`
	} `json:"index"`
}

// libInfo runs `mcpvec info --json` on db with extra environment; an
// inconsistent library fails t. info leaves a vector index that Open
// deferred (the offline embedder's) unloaded.
func libInfo(t *testing.T, db string, env []string) infoJSON {
	t.Helper()
	out := mustRunEnv(t, db, env, "info", "--json")
	var info infoJSON
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("info --json: %v\n%s", err, out)
	}
	if !info.Consistent || info.Vectors != info.Passages || (!info.Index.VectorsDeferred && info.Index.VectorPassages != info.Passages) {
		t.Fatalf("library inconsistent: %+v", info)
	}
	return info
}

// searchTop runs `mcpvec search --json` in mode for the top three results;
// none fails t.
func searchTop(t *testing.T, db string, env []string, mode, query string) searchJSON {
	t.Helper()
	out := mustRunEnv(t, db, env, "search", "--json", "--mode", mode, "-k", "3", "--", query)
	var sr searchJSON
	if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Results) == 0 {
		t.Fatalf("search %q (%s): %v\n%s", query, mode, err, out)
	}
	return sr
}

// lsDoc is a document as `mcpvec ls --json` lists it.
type lsDoc struct{ ID, Source string }

// lsDocs lists the library's documents.
func lsDocs(t *testing.T, db string) []lsDoc {
	t.Helper()
	var ls struct{ Documents []lsDoc }
	if err := json.Unmarshal([]byte(mustRun(t, db, "ls", "--json")), &ls); err != nil {
		t.Fatal(err)
	}
	return ls.Documents
}

// lsSources is the sorted source paths of the library's documents.
func lsSources(t *testing.T, db string) []string {
	t.Helper()
	var out []string
	for _, d := range lsDocs(t, db) {
		out = append(out, d.Source)
	}
	sort.Strings(out)
	return out
}

// docID is the id of the document with source path source, or "".
func docID(t *testing.T, db, source string) string {
	t.Helper()
	for _, d := range lsDocs(t, db) {
		if d.Source == source {
			return d.ID
		}
	}
	return ""
}
