package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// backupLibrary ingests n small documents into a new library and returns
// its path and the folder they came from.
func backupLibrary(t *testing.T, n int) (db, dir string) {
	t.Helper()
	dir, db = tempLib(t)
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	for i := range n {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("d%02d.txt", i)), fmt.Sprintf("Document %d tells of lighthouse %d and the keeper who trimmed its wicks.", i, i))
	}
	mustRun(t, db, "ingest", docs)
	return db, dir
}

// TestBackupRestoreRoundTrip: a backup taken while `serve` holds the
// library (handed to it, to a file and to stdout) passes check; restore
// is refused while the server runs, and once it stopped puts the backup
// in place, keeping the changed library aside.
func TestBackupRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	db, dir := backupLibrary(t, 3)
	before := lsSources(t, db)
	srv := serveProc(t, db, nil)
	copyPath := filepath.Join(dir, "copy.db")
	out := mustRun(t, db, "backup", copyPath)
	if !strings.Contains(out, "backup "+copyPath+": 3 documents") || !strings.Contains(out, "check ok") {
		t.Fatalf("backup while serving: %s", out)
	}
	r := mcpvec(t, db, "backup", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "handing the command to it") {
		t.Fatalf("backup - while serving: %+v", r.stderr)
	}
	streamed := writeFile(t, filepath.Join(dir, "streamed.db"), r.stdout)
	if out := mustRun(t, streamed, "check"); !strings.Contains(out, ": ok") {
		t.Errorf("check of the streamed backup: %s", out)
	}
	if r := mcpvec(t, db, "backup", db); r.code == 0 || !strings.Contains(r.stderr, "is the library itself") {
		t.Errorf("backup over the live library: %+v", r)
	}
	if r := mcpvec(t, db, "restore", copyPath); r.code == 0 || !strings.Contains(r.stderr, "stop it, run restore") {
		t.Errorf("restore while serving: %+v", r)
	}
	mustRun(t, db, "rm", before[0])
	srv.Stop()
	out = mustRun(t, db, "restore", copyPath)
	aside := strings.TrimSpace(out[strings.LastIndex(out, " ")+1:])
	if !strings.Contains(out, "restored "+db+" from "+copyPath) || !strings.HasPrefix(aside, db+".before-restore-") {
		t.Fatalf("restore: %s", out)
	}
	if got := lsSources(t, db); !slices.Equal(got, before) {
		t.Errorf("after restore the library holds %q, want %q", got, before)
	}
	if got := lsSources(t, aside); len(got) != 2 {
		t.Errorf("the library kept aside holds %q, want the 2 left after rm", got)
	}
	if out := mustRun(t, db, "search", "lighthouse 2"); !strings.Contains(out, "lighthouse 2") {
		t.Errorf("search after restore: %s", out)
	}
}

// TestRestoreRefusesDamagedOrNewer: a truncated backup and one written by
// a newer mcpvec are refused with one line, and the library stays as it
// was.
func TestRestoreRefusesDamagedOrNewer(t *testing.T) {
	t.Parallel()
	db, dir := backupLibrary(t, 2)
	good := filepath.Join(dir, "good.db")
	mustRun(t, db, "backup", good)
	damaged := filepath.Join(dir, "damaged.db")
	os.WriteFile(damaged, must(os.ReadFile(good)), 0o600)
	storetest.Truncate(t, damaged, 0.5)
	newer := filepath.Join(dir, "newer.db")
	os.WriteFile(newer, must(os.ReadFile(good)), 0o600)
	setSchema(t, newer, "99")
	for name, path := range map[string]string{"damaged": damaged, "newer": newer} {
		r := mcpvec(t, db, "restore", path)
		if r.code == 0 || !strings.Contains(r.stderr, "refusing to restore "+path) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("restore of the %s backup: %+v", name, r)
		}
	}
	if r := mcpvec(t, db, "restore", newer); !strings.Contains(r.stderr, "newer mcpvec") {
		t.Errorf("restore of a newer backup does not say so: %s", r.stderr)
	}
	if got := lsSources(t, db); len(got) != 2 {
		t.Errorf("the library after refused restores: %q", got)
	}
	if m, _ := filepath.Glob(db + ".before-restore-*"); len(m) != 0 {
		t.Errorf("a refused restore moved the library aside: %q", m)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// setSchema overwrites the schema version recorded in the library at path.
func setSchema(t *testing.T, path, v string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte(v)) }); err != nil {
		t.Fatal(err)
	}
}

// TestExportImportRoundTrip: an export (gzipped) imported into a new
// library exports again to the same documents, passages, vectors and
// originals; a second import skips what is there, --replace replaces it;
// a truncated export and a newer format are refused.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	db, dir := backupLibrary(t, 3)
	gz := filepath.Join(dir, "lib.jsonl.gz")
	if out := mustRun(t, db, "export", "--out", gz); !strings.Contains(out, "exported 3 documents to "+gz) {
		t.Fatalf("export: %s", out)
	}
	other := filepath.Join(dir, "other.db")
	if out := mustRun(t, other, "import", gz); !strings.Contains(out, "imported 3 documents") {
		t.Fatalf("import: %s", out)
	}
	if got, want := exportBody(t, other, nil), exportBody(t, db, nil); got != want {
		t.Errorf("export of the imported library differs:\n%.2000s\nwant\n%.2000s", got, want)
	}
	if out := mustRun(t, other, "import", gz); !strings.Contains(out, "imported 0 documents") || !strings.Contains(out, "3 already there were skipped") {
		t.Errorf("import again: %s", out)
	}
	if out := mustRun(t, other, "import", "--replace", gz); !strings.Contains(out, "imported 3 documents") {
		t.Errorf("import --replace: %s", out)
	}
	if out := mustRun(t, other, "check"); !strings.Contains(out, ": ok") {
		t.Errorf("check after imports: %s", out)
	}
	lines := strings.SplitAfter(mustRun(t, db, "export"), "\n")
	cut := writeFile(t, filepath.Join(dir, "cut.jsonl"), strings.Join(lines[:len(lines)-2], ""))
	if r := mcpvec(t, filepath.Join(dir, "third.db"), "import", cut); r.code == 0 || !strings.Contains(r.stderr, "without its end line") {
		t.Errorf("import of a truncated export: %+v", r)
	}
	newer := writeFile(t, filepath.Join(dir, "newer.jsonl"), `{"format":"mcpvec-export","version":2}`+"\n")
	if r := mcpvec(t, filepath.Join(dir, "third.db"), "import", newer); r.code == 0 || !strings.Contains(r.stderr, "newer mcpvec") {
		t.Errorf("import of a newer export: %+v", r)
	}
}

// exportBody exports the library db (extra environment env) to stdout
// and returns it without its header line, which names the source and the
// time.
func exportBody(t *testing.T, db string, env []string) string {
	t.Helper()
	out := mustRunEnv(t, db, env, "export")
	_, body, _ := strings.Cut(out, "\n")
	return body
}

// TestExportImportWeaviate: a library file exported, imported into a
// Weaviate collection and exported from it gives the same documents,
// passages, vectors and originals; and back into a new file.
func TestExportImportWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, weaviatetest.Options{})
	db, dir := backupLibrary(t, 3)
	exp := filepath.Join(dir, "lib.jsonl")
	mustRun(t, db, "export", "--out", exp)
	env := []string{"MCPVEC_STORE=" + c.URL(0, "Imported")}
	unused := filepath.Join(dir, "unused.db")
	if out := mustRunEnv(t, unused, env, "import", exp); !strings.Contains(out, "imported 3 documents") {
		t.Fatalf("import into Weaviate: %s", out)
	}
	// A collection keeps no file modification time (sync's shortcut for
	// skipping the hash): the one field the round trip drops.
	want := modTime.ReplaceAllString(exportBody(t, db, nil), "")
	fromWeaviate := exportBody(t, unused, env)
	if fromWeaviate != want {
		t.Errorf("export from Weaviate differs:\n%.3000s\nwant\n%.3000s", fromWeaviate, want)
	}
	back := writeFile(t, filepath.Join(dir, "back.jsonl"), mustRunEnv(t, unused, env, "export"))
	file := filepath.Join(dir, "back.db")
	mustRun(t, file, "import", back)
	if got := exportBody(t, file, nil); got != fromWeaviate {
		t.Errorf("Weaviate → file: the export differs")
	}
	if out := mustRunEnv(t, unused, env, "search", "lighthouse 1"); !strings.Contains(out, "lighthouse 1") {
		t.Errorf("search of the imported collection: %s", out)
	}
}

var modTime = regexp.MustCompile(`"mod_time":"[^"]*",`)

// TestScheduledBackups: serve --backup-every writes checked backups into
// the folder beside the library and keeps the newest --keep.
func TestScheduledBackups(t *testing.T) {
	t.Parallel()
	db, _ := backupLibrary(t, 2)
	srv := serveProc(t, db, nil, "--backup-every", "300ms", "--keep", "2")
	dir := db + ".backups"
	deadline := time.Now().Add(time.Minute)
	for n := 0; n < 4; n = strings.Count(srv.Stderr.String(), "msg=\"scheduled backup\"") {
		if time.Now().After(deadline) {
			t.Fatalf("no 4 scheduled backups within a minute:\n%s", srv.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.Stop()
	m, _ := filepath.Glob(filepath.Join(dir, "backup-*.db"))
	if len(m) != 2 {
		t.Fatalf("backups kept: %q, want 2", m)
	}
	if !strings.Contains(srv.Stderr.String(), "removed an old backup") {
		t.Errorf("no pruning logged:\n%s", srv.Stderr)
	}
	for _, p := range m {
		if out := mustRun(t, p, "check"); !strings.Contains(out, ": ok") {
			t.Errorf("check of %s: %s", p, out)
		}
		if got := lsSources(t, p); len(got) != 2 {
			t.Errorf("%s holds %q", p, got)
		}
	}
	if r := mcpvec(t, db, "serve", "--keep", "0"); r.code != 2 {
		t.Errorf("serve --keep 0: %+v", r)
	}
}

// TestBackupDuringPlainIngest: while a plain `mcpvec ingest` holds the
// library (no server), a backup is handed to it and the copy passes check.
func TestBackupDuringPlainIngest(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	for i := range 600 {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("d%04d.txt", i)), strings.Repeat(fmt.Sprintf("Lighthouse %d log: the keeper trimmed the wicks. ", i), 80))
	}
	writeFile(t, filepath.Join(dir, "first.txt"), "a first document, so the library exists")
	mustRun(t, db, "ingest", filepath.Join(dir, "first.txt"))
	p, err := childproc.Start(childCmd(context.Background(), db, nil, "ingest", docs))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	copyPath := filepath.Join(dir, "copy.db")
	for i := 0; ; i++ { // bounded: the ingest of 600 files outlasts a few tries
		r := mcpvec(t, db, "backup", copyPath)
		if strings.Contains(r.stderr, "running `mcpvec ingest`") {
			if r.code != 0 || !strings.Contains(r.stdout, "check ok") {
				t.Fatalf("backup handed to the ingest: %+v", r)
			}
			break
		}
		if i == 50 {
			t.Fatalf("no backup was handed to the running ingest: %+v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := lsSources(t, copyPath); len(got) == 0 {
		t.Errorf("the copy holds no document")
	}
}

// TestBackupRestoreRefuseACollection: backup and restore work on a library
// file; given a Weaviate library they refuse before connecting to it and
// name the command that does the job for a collection.
func TestBackupRestoreRefuseACollection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "copy.db")
	coll := "weaviate://127.0.0.1:1/Notes" // nothing listens: a refusal must come first
	for _, c := range []struct {
		cmd, want string
	}{
		{"backup", "copied out with `mcpvec export`"},
		{"restore", "filled with `mcpvec import`"},
	} {
		r := mcpvec(t, filepath.Join(dir, "lib.db"), c.cmd, "--store", coll, out)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s --store %s: exit %d, stderr %q; want a refusal naming %q", c.cmd, coll, r.code, r.stderr, c.want)
		}
	}
}
