package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsPathSaysWhyAFileIsMissing is issue 34 item 8: a file whose content
// another ingested file already has is left out, and nothing a user looks
// at said so. `mcpvec ls PATH...` lists the documents of those files and
// folders and says, one line a file, which file has the same content, or
// that a file is not in the library.
func TestLsPathSaysWhyAFileIsMissing(t *testing.T) {
	t.Parallel()
	db, dir := libAndFolder(t, "notes")
	text := "Lighthouse keepers trimmed the wicks nightly."
	a := writeFile(t, filepath.Join(dir, "a.txt"), text)
	b := writeFile(t, filepath.Join(dir, "b.md"), text)
	mustRun(t, db, "ingest", a)
	if r := mcpvec(t, db, "ingest", b); !strings.Contains(r.stdout, "1 duplicate,") {
		t.Fatalf("ingest of the copy: %+v", r)
	}
	later := writeFile(t, filepath.Join(dir, "later.txt"), "Written after the ingest.")

	out := mustRun(t, db, "ls", dir)
	for _, want := range []string{
		a + "\n",
		b + " has the same content as " + a + " (document ",
		later + " is not in the library\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ls %s: no %q in:\n%s", dir, want, out)
		}
	}
	var ls struct {
		Documents  []lsDoc
		Duplicates []duplicateJSON
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "ls", "--json", b)), &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Documents) != 0 || len(ls.Duplicates) != 1 || ls.Duplicates[0].Path != b || ls.Duplicates[0].DocumentID != docID(t, db, a) {
		t.Fatalf("ls --json %s = %+v", b, ls)
	}
}
