package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/store"
)

// startServer runs `mcpvec serve` on db as a child process and returns once
// it listens (its admin channel is up by then). The server gets SIGTERM on
// cleanup.
func startServer(t *testing.T, db string) *exec.Cmd {
	t.Helper()
	_, _, srv := serveURL(t, db)
	return srv
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
	dir := t.TempDir()
	db := filepath.Join(dir, "lib.db")
	doc := writeFile(t, filepath.Join(dir, "a.txt"), "lighthouse keepers trimmed the wicks nightly")
	mustRun(t, db, "ingest", doc)
	srv := startServer(t, db)
	srv.Process.Kill()
	srv.Wait()
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

	startServer(t, db)
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
	startServer(t, dbA)
	startServer(t, dbB)
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
