package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRmOnFullDisk is issue 15 finding 9 (rm on a full disk): every
// document named is attempted, each failure says the disk is full, and the
// library passes check afterwards; once space is freed the rest go.
func TestRmOnFullDisk(t *testing.T) {
	dir := smallTmpfs(t, 8<<20)
	db := filepath.Join(dir, "lib.db")
	files := filepath.Join(t.TempDir(), "files")
	os.MkdirAll(files, 0o755)
	var ids []string
	for i := range 12 {
		p := filepath.Join(files, fmt.Sprintf("doc%02d.txt", i))
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("Quay %d stores nets and buoys %d. ", i, i*3), 400)), 0o644)
		ids = append(ids, p)
	}
	mustRun(t, db, "ingest", files)
	filler := fillDisk(t, dir)
	r := mcpvec(t, db, append([]string{"rm"}, ids...)...)
	outcomes := strings.Count(r.stdout, "removed ") + strings.Count(r.stderr, "mcpvec: rm ")
	if outcomes != len(ids) {
		t.Fatalf("rm on a full disk: %d of %d documents have an outcome\nstdout: %s\nstderr: %s", outcomes, len(ids), r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "mcpvec: rm ") && (r.code != 1 || !strings.Contains(r.stderr, "disk is full")) {
		t.Fatalf("rm failures not clear: exit %d\n%s", r.code, r.stderr)
	}
	if c := mcpvec(t, db, "check"); c.code != 0 {
		t.Fatalf("check after rm on a full disk: %+v", c)
	}
	os.Remove(filler)
	if r.code != 0 {
		r = mcpvec(t, db, append([]string{"rm"}, ids...)...)
		if !strings.Contains(r.stdout, "removed ") || strings.Contains(r.stderr, "disk is full") {
			t.Fatalf("rm after freeing space: %+v", r)
		}
	}
	if out := mustRun(t, db, "ls"); strings.Contains(out, "doc0") {
		t.Fatalf("documents left after rm: %s", out)
	}
}
