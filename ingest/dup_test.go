package ingest_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest"
)

// TestIdenticalFilesIngestedTogether is issue 34 item 8: identical files
// ingested by parallel workers were each "ingested" under the one
// document id, each stored over the last, so all but one vanished from
// the library with no line saying why. Exactly one is stored; every other
// is reported as a duplicate of the one in the library.
func TestIdenticalFilesIngestedTogether(t *testing.T) {
	e := newEnv(t)
	text := strings.Repeat("Identical notes about lighthouse lamps and their keepers. ", 300)
	var paths []string
	for i := range 12 {
		paths = append(paths, e.write(t, fmt.Sprintf("copy%02d.txt", i), text))
	}
	var report strings.Builder
	sum := e.run(t, ingest.Options{Workers: 6, Report: &report}, filepath.Join(e.dir, "files"))
	if sum.Ingested != 1 || sum.Duplicates != len(paths)-1 {
		t.Fatalf("summary = %+v, want 1 ingested and %d duplicates\n%s", sum, len(paths)-1, report.String())
	}
	docs, err := e.db.Documents()
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents = %d, %v", len(docs), err)
	}
	kept := docs[0].SourcePath
	for _, p := range paths {
		line := "duplicate " + p + ": same content as " + kept + " (document " + docs[0].ID + ")"
		if got := strings.Contains(report.String(), line); got != (p != kept) {
			t.Errorf("%s: line %q reported %v, want %v\n%s", p, line, got, p != kept, report.String())
		}
	}
}
