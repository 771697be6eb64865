package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsPathSaysASyncCouldNotReadIt: a file a sync remembers as unreadable
// (reported once, then "unreadable as before") is not just "not in the
// library" for `ls PATH`: it says why, and how to read it again.
func TestLsPathSaysASyncCouldNotReadIt(t *testing.T) {
	t.Parallel()
	db, dir := libAndFolder(t, "papers")
	writeFile(t, filepath.Join(dir, "ok.txt"), "Lighthouse keepers trimmed the wicks nightly.")
	bad := filepath.Join(dir, "broken.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.7 this is not a PDF at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpvec(t, db, "sync", dir)
	if r := mcpvec(t, db, "sync", dir); !strings.Contains(r.stdout, "1 unreadable as before") {
		t.Fatalf("second sync: %+v", r)
	}
	out := mustRun(t, db, "ls", dir)
	if want := bad + " is not in the library: a sync could not read it ("; !strings.Contains(out, want) {
		t.Errorf("ls %s: no %q in:\n%s", dir, want, out)
	}
}
