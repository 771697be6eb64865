package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/store"
)

func TestEndToEndIngestSearchFetchRm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testEndToEnd(t, dir, filepath.Join(dir, "lib.db"), nil)
}

// testEndToEnd ingests, searches, fetches, lists and removes through the
// binary, on the library file db or on the store env selects.
func testEndToEnd(t *testing.T, dir, db string, env []string) {
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "valgrind.md"), []byte("# Valgrind notes\n\nRun memcheck with --leak-check=full to see every leaked block.\n\nThe BZ2_bzDecompressInit function prepares a decompression stream.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "setup.exe"), []byte("MZ\x90\x00"), 0o644)
	cats, err := filepath.Abs("../../testdata/cats.pdf")
	if err != nil {
		t.Fatal(err)
	}

	r := mcpvecEnv(t, db, env, "ingest", cats, notes)
	if r.code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "ingested 2 documents") || !strings.Contains(r.stderr, "setup.exe") {
		t.Fatalf("ingest summary/skip lines missing:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	// Re-ingesting unchanged files does nothing.
	if out := mustRunEnv(t, db, env, "ingest", cats, notes); !strings.Contains(out, "ingested 0 documents") || !strings.Contains(out, "2 unchanged") {
		t.Fatalf("re-ingest: %s", out)
	}

	var sr searchJSON
	out := mustRunEnv(t, db, env, "search", "--json", "are cats attached to their homes")
	if err := json.Unmarshal([]byte(out), &sr); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if len(sr.Results) == 0 || !strings.Contains(sr.Results[0].Title, "p. ") {
		t.Fatalf("search results = %+v", sr.Results)
	}
	top := sr.Results[0]

	// Identifiers are searchable; "--" ends the flags.
	out = mustRunEnv(t, db, env, "search", "--json", "-k", "1", "--", "--leak-check=full")
	if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Results) != 1 || !strings.Contains(sr.Results[0].Text, "leak-check") {
		t.Fatalf("identifier search: %v %s", err, out)
	}
	mdID := strings.Split(sr.Results[0].ID, ":")[0]

	var fr struct {
		ID, Title, Text, URL string
		Metadata             map[string]any
	}
	out = mustRunEnv(t, db, env, "fetch", top.ID, "--json")
	if err := json.Unmarshal([]byte(out), &fr); err != nil {
		t.Fatal(err)
	}
	if fr.ID != top.ID || fr.Text == "" || fr.Metadata["page_start"] == nil || fr.Metadata["chunk_index"] == nil || fr.Metadata["document_id"] == nil {
		t.Fatalf("fetch = %+v", fr)
	}

	var ls struct{ Documents []struct{ ID, Source string } }
	if err := json.Unmarshal([]byte(mustRunEnv(t, db, env, "ls", "--json")), &ls); err != nil || len(ls.Documents) != 2 {
		t.Fatalf("ls: %v %+v", err, ls)
	}
	if out := mustRunEnv(t, db, env, "info"); !strings.Contains(out, "documents:  2") || !strings.Contains(out, "consistent") {
		t.Fatalf("info: %s", out)
	}

	// rm by path, then the passage is gone from search and fetch.
	mustRunEnv(t, db, env, "rm", filepath.Join(notes, "valgrind.md"))
	out = mustRunEnv(t, db, env, "search", "--json", "--mode", "lexical", "leak-check")
	if strings.Contains(out, mdID) {
		t.Fatalf("removed document still found: %s", out)
	}
	if r := mcpvecEnv(t, db, env, "fetch", mdID); r.code == 0 || !strings.Contains(r.stderr, "no document or passage") {
		t.Fatalf("fetch removed: %+v", r)
	}
	if r := mcpvecEnv(t, db, env, "rm", "nope"); r.code != 1 {
		t.Fatalf("rm unknown id: %+v", r)
	}
}

func TestIngestFailuresAreReportedAndBatchContinues(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	os.WriteFile(filepath.Join(dir, "good.txt"), []byte("Plain text about lighthouses and their keepers."), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.pdf"), []byte("%PDF-1.4\nthis is not really a pdf"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o644)
	r := mcpvec(t, db, "ingest", dir)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "ingested 1 document ") || !strings.Contains(r.stdout, "2 failed") {
		t.Fatalf("summary: %s", r.stdout)
	}
	for _, f := range []string{"broken.pdf", "empty.txt"} {
		if !strings.Contains(r.stderr, f) {
			t.Errorf("no failure line for %s in:\n%s", f, r.stderr)
		}
	}
}

func TestWritesWhileServingAreForwarded(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("some text to index"), 0o644)
	mustRun(t, db, "ingest", filepath.Join(dir, "a.txt"))
	// Hold the library open with a server on a free port (stdio mode would
	// need a pipe; HTTP mode is simplest), then try to write.
	serveProc(t, db, nil)
	// A write from another process is handed to the running server.
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("lighthouse keepers trimmed the wicks nightly"), 0o644)
	r := mcpvec(t, db, "ingest", filepath.Join(dir, "b.txt"))
	if r.code != 0 || !strings.Contains(r.stdout, "ingested 1 document ") {
		t.Fatalf("forwarded ingest: %+v", r)
	}
	out := mustRun(t, db, "search", "--json", "lighthouse keepers")
	if !strings.Contains(out, "wicks") {
		t.Fatalf("forwarded search did not see the new document: %s", out)
	}
}

// socketOf is where the children started by these tests put the admin
// socket of db (they inherit this process's XDG_RUNTIME_DIR).
func socketOf(db string) string {
	return admin.SocketPath(os.Getenv("XDG_RUNTIME_DIR"), db)
}

// TestKilledServerLeavesPlainLockedError is issue 15 finding 7: after
// `serve` is killed with -9 its socket stays behind; a command that then
// meets another writer's lock must say who holds the library, not that it
// hands the command to a server and then that none listens. A new server
// replaces the stale socket.
func TestKilledServerLeavesPlainLockedError(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	doc := writeFile(t, filepath.Join(dir, "a.txt"), "lighthouse keepers trimmed the wicks nightly")
	mustRun(t, db, "ingest", doc)
	serveProc(t, db, nil).Kill()
	if _, err := os.Lstat(socketOf(db)); err != nil {
		t.Fatalf("kill -9 left no socket behind (%v); the test needs one", err)
	}

	writer, err := store.Open(db, nil) // another writer: this process
	if err != nil {
		t.Fatal(err)
	}
	r := mcpvec(t, db, "rm", doc)
	writer.Close()
	if r.code != 1 || strings.Contains(r.stderr, "handing the command") ||
		!strings.Contains(r.stderr, fmt.Sprintf("is in use by PID %d", os.Getpid())) {
		t.Fatalf("rm with a stale socket and another writer: exit %d, stderr:\n%s\nwant exit 1 and only the locked error", r.code, r.stderr)
	}

	serveProc(t, db, nil)
	r = mcpvec(t, db, "ls")
	if r.code != 0 || !strings.Contains(r.stdout, "a.txt") || !strings.Contains(r.stderr, "handing the command") {
		t.Fatalf("ls through a server started over the stale socket: %+v", r)
	}
}

// TestForwardRefusesServerOfAnotherLibrary is issue 15 finding 6 end to
// end: when the socket path of library B reaches the server of library A,
// `rm --db B` must be refused instead of removing documents from A.
func TestForwardRefusesServerOfAnotherLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dbA, dbB := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	doc := writeFile(t, filepath.Join(dir, "a.txt"), "lighthouse keepers trimmed the wicks nightly")
	mustRun(t, dbA, "ingest", doc)
	mustRun(t, dbB, "ingest", doc)
	serveProc(t, dbA, nil)
	serveProc(t, dbB, nil)
	sockB := socketOf(dbB)
	if err := os.Rename(socketOf(dbA), sockB); err != nil { // B's path now reaches A's server
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(sockB) }) // neither server owns it now

	r := mcpvec(t, dbB, "rm", doc)
	if r.code != 1 || strings.Contains(r.stderr, "handing the command") || !strings.Contains(r.stderr, "holds another library") {
		t.Fatalf("rm --db B through A's server: exit %d, stderr:\n%s\nwant it refused as another library", r.code, r.stderr)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if code, err := admin.Call(ctx, sockB, dbA, []string{"ls"}, dir, &out, io.Discard); err != nil || code != 0 || !strings.Contains(out.String(), "a.txt") {
		t.Fatalf("library A after the refused rm: ls = %d, %v, %q; want its document kept", code, err, out.String())
	}
}
