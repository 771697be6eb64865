package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebLibraryPageShowsWritesFromAnotherProcess: the library page keeps
// its rows between views (by the store's write generation), and a document
// that `mcpvec ingest`, run as another process beside `serve`, writes
// shows on the next view, as a removal by `mcpvec rm` does.
func TestWebLibraryPageShowsWritesFromAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "lib.db")
	first := filepath.Join(dir, "herons.txt")
	second := filepath.Join(dir, "kingfishers.txt")
	os.WriteFile(first, []byte("Herons stand still in the shallows and wait for fish.\n"), 0o600)
	os.WriteFile(second, []byte("Kingfishers dive from a perch to catch small fish.\n"), 0o600)
	mustRun(t, db, "ingest", first)
	s := serveProc(t, db, nil)
	web := &webClient{t: t, base: strings.TrimSuffix(s.url, "/mcp")}
	view := func() string {
		t.Helper()
		code, _, page := web.get("/")
		if code != 200 {
			t.Fatalf("GET / = %d:\n%.1000s", code, page)
		}
		return page
	}
	if page := view(); !strings.Contains(page, "herons.txt") || strings.Contains(page, "kingfishers.txt") {
		t.Fatalf("first view:\n%.3000s", page)
	}
	view() // kept now
	mustRun(t, db, "ingest", second)
	if page := view(); !strings.Contains(page, "kingfishers.txt") {
		t.Fatalf("a document ingested by another process is missing from the next view:\n%.3000s", page)
	}
	mustRun(t, db, "rm", first)
	if page := view(); strings.Contains(page, "herons.txt") {
		t.Fatalf("a document removed by another process is still on the next view:\n%.3000s", page)
	}
}
