package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
)

// TestSearchOperatorsCLI: `mcpvec search` takes the operators in its query
// as the MCP tool does (one parser in the library), and an operator that
// matches nothing is a note on stderr.
func TestSearchOperatorsCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "lib.db")
	files := []struct{ path, word, date string }{
		{"work/alpha.md", "alpha", "2023-06-01"}, {"work/bravo.txt", "bravo", "2024-03-10"},
		{"home/charlie.md", "charlie", "2024-05-01"}, {"home/delta.txt", "delta", "2022-01-01"},
	}
	for _, f := range files {
		p := filepath.Join(dir, "docs", filepath.FromSlash(f.path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("The "+f.word+" pump primes itself with water.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		when, _ := time.Parse(time.DateOnly, f.date)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, db, "ingest", filepath.Join(dir, "docs"))
	for _, c := range []struct {
		query string
		words []string
	}{
		{"pump", []string{"alpha", "bravo", "charlie", "delta"}},
		{"pump in:alpha*", []string{"alpha"}},
		{"pump -in:alpha*", []string{"bravo", "charlie", "delta"}},
		{"pump path:work/", []string{"alpha", "bravo"}},
		{"pump -path:work/", []string{"charlie", "delta"}},
		{"pump type:md", []string{"alpha", "charlie"}},
		{"pump -type:md", []string{"bravo", "delta"}},
		{"pump after:2024-03", []string{"bravo", "charlie"}},
		{"pump before:2024", []string{"alpha", "delta"}},
		{`"charlie pump"`, []string{"charlie"}},
		{"pump -alpha -bravo", []string{"charlie", "delta"}},
		{"type:txt after:2024", []string{"bravo"}},
	} {
		var sr searchJSON
		out := mustRun(t, db, "search", "--json", "-k", "10", c.query)
		if err := json.Unmarshal([]byte(out), &sr); err != nil {
			t.Fatalf("%q: %v\n%s", c.query, err, out)
		}
		var words []string
		for _, r := range sr.Results {
			for _, f := range files {
				if strings.Contains(r.Text, f.word) && !slices.Contains(words, f.word) {
					words = append(words, f.word)
				}
			}
		}
		slices.Sort(words)
		if !slices.Equal(words, c.words) {
			t.Errorf("%q: documents %v, want %v", c.query, words, c.words)
		}
	}
	r := mcpvec(t, db, "search", "pump type:pdf")
	if r.code != 0 || !strings.Contains(r.stderr, "note: type:pdf matches no document in the library") || !strings.Contains(r.stderr, "no results") {
		t.Fatalf("no-match operator: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestSearchDateOperatorsCreatedCLI: after: and before: select a PDF by the
// creation date its Info dictionary records, not by its file's modification
// time; a file whose format records no date is selected by its mtime.
func TestSearchDateOperatorsCreatedCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "lib.db")
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	old := minipdf.Write([]minipdf.Page{{"The archived turbine survey lists every blade."}}, minipdf.Options{Title: "Survey", CreationDate: "D:20190102030405+01'00'"})
	files := map[string][]byte{"survey.pdf": old, "memo.txt": []byte("The recent turbine memo lists every blade.\n")}
	mtime := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) // both files: only the PDF's own date differs
	for name, data := range files {
		p := filepath.Join(docs, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, db, "ingest", docs)
	for _, c := range []struct{ query, want string }{
		{"turbine before:2020", "archived"},
		{"turbine after:2019 before:2019-02", "archived"},
		{"turbine after:2024", "recent"},
	} {
		var sr searchJSON
		out := mustRun(t, db, "search", "--json", "-k", "10", c.query)
		if err := json.Unmarshal([]byte(out), &sr); err != nil {
			t.Fatalf("%q: %v\n%s", c.query, err, out)
		}
		if len(sr.Results) != 1 || !strings.Contains(sr.Results[0].Text, c.want) {
			t.Fatalf("%q: %d results %+v, want the %s one only", c.query, len(sr.Results), sr.Results, c.want)
		}
		id, _, _ := strings.Cut(sr.Results[0].ID, ":")
		got, want := fetchJSON(t, db, id).Metadata["created"], any("2019-01-02T02:04:05Z")
		if c.want == "recent" {
			want = nil // a text file records no date of its own
		}
		if got != want {
			t.Errorf("fetch %s: metadata created %v, want %v", id, got, want)
		}
	}
}
