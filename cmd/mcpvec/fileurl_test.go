package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalSearchLinksTheFile is issue 34 item 8: without a server,
// `search --json` gave "url": "" for a document without a source URL. A
// local reader gets the file's file:// URL, escaped, at the cited page of
// a PDF; fetch gives the same link.
func TestLocalSearchLinksTheFile(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	cats, err := os.ReadFile("../../testdata/cats.pdf")
	if err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(dir, "my cats #1 100%.pdf")
	if err := os.WriteFile(pdf, cats, 0o644); err != nil {
		t.Fatal(err)
	}
	notes := writeFile(t, filepath.Join(dir, "notes.md"), "# Notes\n\nLighthouse keepers trimmed the wicks nightly.\n")
	mustRun(t, db, "ingest", pdf, notes)

	for _, tc := range []struct{ query, path, fragment string }{
		{"are cats attached to their homes", pdf, "page="},
		{"lighthouse keepers wicks", notes, ""},
	} {
		var sr searchJSON
		if err := json.Unmarshal([]byte(mustRun(t, db, "search", "--json", "-k", "1", tc.query)), &sr); err != nil || len(sr.Results) != 1 {
			t.Fatalf("search %q: %v %+v", tc.query, err, sr)
		}
		top := sr.Results[0]
		u, err := url.Parse(top.URL)
		if err != nil || u.Scheme != "file" || u.Path != tc.path || !strings.HasPrefix(u.Fragment, tc.fragment) ||
			(tc.fragment == "" && u.Fragment != "") || strings.Contains(top.URL, " ") {
			t.Fatalf("search %q: url %q, want file://%s#%s…", tc.query, top.URL, tc.path, tc.fragment)
		}
		if tc.fragment != "" && !strings.Contains(top.Title, "p. "+strings.TrimPrefix(u.Fragment, "page=")) {
			t.Errorf("url %q does not open at the cited page of %q", top.URL, top.Title)
		}
		if fr := fetchJSON(t, db, top.ID); fr.URL != top.URL {
			t.Errorf("fetch %s: url %q, want %q", top.ID, fr.URL, top.URL)
		}
	}
}
