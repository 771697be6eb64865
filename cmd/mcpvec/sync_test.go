package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// lsSources returns the sorted source paths the library holds.
func TestSyncCommandRemembersRootsAndFollowsChanges(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(filepath.Join(docs, "sub"), 0o755)
	writeFile(t, filepath.Join(docs, "a.md"), "# Harbours\n\nTugboats guide freighters into the harbour.")
	writeFile(t, filepath.Join(docs, "sub", "b.txt"), "Lighthouses warn ships of rocks.")
	writeFile(t, filepath.Join(docs, "skip.txt"), "excluded by the flag")
	r := mcpvec(t, db, "sync", "--url-prefix", "https://example.org/docs/", "--exclude", "skip.txt", docs)
	if r.code != 0 || !strings.Contains(r.stdout, "synced 1 folder: 2 added, 0 updated, 0 moved, 0 removed, 0 unchanged, 0 failed") {
		t.Fatalf("first sync: %+v", r)
	}
	var roots struct {
		Roots []struct {
			Path      string
			URLPrefix string `json:"url_prefix"`
			Exclude   []string
		}
	}
	json.Unmarshal([]byte(mustRun(t, db, "ls", "--roots", "--json")), &roots)
	if len(roots.Roots) != 1 || roots.Roots[0].URLPrefix != "https://example.org/docs/" || len(roots.Roots[0].Exclude) != 1 {
		t.Fatalf("remembered roots: %+v", roots)
	}
	os.Rename(filepath.Join(docs, "a.md"), filepath.Join(docs, "sub", "harbours.md"))
	os.Remove(filepath.Join(docs, "sub", "b.txt"))
	writeFile(t, filepath.Join(docs, "c.txt"), "Cranes unload containers at night.")
	if out := mustRun(t, db, "sync", "--dry-run"); !strings.Contains(out, "plan: 1 to add, 0 to update, 1 to move, 1 to remove") {
		t.Fatalf("dry run: %s", out)
	}
	out := mustRun(t, db, "sync") // the remembered root, with its options
	if !strings.Contains(out, "1 added, 0 updated, 1 moved, 1 removed, 0 unchanged, 0 failed") {
		t.Fatalf("bare sync: %s", out)
	}
	want := []string{filepath.Join(docs, "c.txt"), filepath.Join(docs, "sub", "harbours.md")}
	if got := lsSources(t, db); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sources = %q, want %q", got, want)
	}
	s := searchTop(t, db, nil, "hybrid", "tugboats freighters harbour")
	if len(s.Results) == 0 || s.Results[0].URL != "https://example.org/docs/sub/harbours.md" {
		t.Fatalf("moved document's URL: %+v", s.Results)
	}
	libInfo(t, db, nil)
	if r := mcpvec(t, filepath.Join(dir, "new.db"), "sync"); r.code == 0 || !strings.Contains(r.stderr, "no folders synced yet") {
		t.Fatalf("bare sync of a fresh library: %+v", r)
	}
}

// TestSyncWhileServingIsForwarded syncs from the CLI while a server holds
// the library: the sync runs in the server, MCP sees the change at once,
// and a removed document's fetch is a clear not-found tool error.
func TestSyncWhileServingIsForwarded(t *testing.T) {
	t.Parallel()
	db, docs := libAndFolder(t, "docs")
	for i := range 20 {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("n%02d.txt", i)), fmt.Sprintf("Note %d about orchard number %d and its apple trees.", i, i))
	}
	mustRun(t, db, "sync", docs)
	goneID := docID(t, db, filepath.Join(docs, "n00.txt"))
	s := startServe(t, db, nil)
	if text, isErr := mcpFetch(t, s.c, goneID); isErr || !strings.Contains(text, "orchard number 0") {
		t.Fatalf("fetch before removal: %v %s", isErr, text)
	}
	os.Remove(filepath.Join(docs, "n00.txt"))
	for i := 20; i < 40; i++ {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("n%02d.txt", i)), fmt.Sprintf("Note %d about vineyard number %d and its grapes.", i, i))
	}
	r := mcpvec(t, db, "sync")
	if r.code != 0 || !strings.Contains(r.stdout, "20 added, 0 updated, 0 moved, 1 removed, 19 unchanged, 0 failed") ||
		!strings.Contains(r.stderr, "handing the command to it") {
		t.Fatalf("forwarded sync: %+v", r)
	}
	if got := mcpSearch(t, s.c, "vineyard number 33 grapes"); len(got) == 0 || !strings.Contains(got[0], "vineyard number 33") {
		t.Fatalf("MCP search after the forwarded sync: %q", got)
	}
	text, isErr := mcpFetch(t, s.c, goneID)
	if !isErr || !strings.Contains(text, "Unknown id") {
		t.Fatalf("fetch of a removed document: error=%v %q", isErr, text)
	}
	if n := len(lsSources(t, db)); n != 39 {
		t.Fatalf("%d documents after the forwarded sync, want 39", n)
	}
	libInfo(t, db, nil)
}

// TestServeWatchKeepsTheLibraryCurrent runs `serve --watch FOLDER`: a new
// file becomes searchable over MCP without a restart, an edit replaces the
// text, and a deleted file's fetch is a not-found tool error.
func TestServeWatchKeepsTheLibraryCurrent(t *testing.T) {
	t.Parallel()
	db, docs := libAndFolder(t, "docs")
	old := time.Now().Add(-time.Hour)
	writeFile(t, filepath.Join(docs, "first.txt"), "Beekeepers smoke the hive before opening it.")
	os.Chtimes(filepath.Join(docs, "first.txt"), old, old)
	mustRun(t, db, "sync", docs)
	s := startServe(t, db, nil, "--watch", "--watch-quiet", "150ms", "--watch-rescan", "1h")
	start := time.Now()
	writeFile(t, filepath.Join(docs, "second.txt"), "Glassblowers shape molten sand on a pipe.")
	if !waitSearch(t, s.c, "glassblowers molten sand", "Glassblowers", 20*time.Second) {
		t.Fatal("the new file never became searchable")
	}
	t.Logf("change to searchable over MCP: %s", time.Since(start))
	id := docID(t, db, filepath.Join(docs, "second.txt"))
	os.Remove(filepath.Join(docs, "second.txt"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		text, isErr := mcpFetch(t, s.c, id)
		if isErr && strings.Contains(text, "Unknown id") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("removed file still fetchable: %q\n%s", text, s.Stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if roots := mustRun(t, db, "ls", "--roots"); !strings.Contains(roots, docs) {
		t.Fatalf("ls --roots while watching: %s", roots)
	}
}

// TestUnchangedSyncWritesNothing: a sync of folders that did not change,
// named or remembered, and the rescans of `serve --watch` that find
// nothing leave the library file as it was: the same bytes and bbolt
// transaction id, so no commit (and no fsync). A removed file is still
// removed.
func TestUnchangedSyncWritesNothing(t *testing.T) {
	t.Parallel()
	db, docs := libAndFolder(t, "docs")
	writeFile(t, filepath.Join(docs, "a.md"), "# Kilns\n\nPotters fire clay in a kiln.")
	writeFile(t, filepath.Join(docs, "b.txt"), "Weavers warp the loom before weaving.")
	mustRun(t, db, "sync", docs)
	s := serveProc(t, db, nil) // a first serve stores its link key
	s.Stop()
	before := storetest.FileState(t, db)
	for _, args := range [][]string{{"sync", docs}, {"sync"}} {
		if out := mustRun(t, db, args...); !strings.Contains(out, "0 added, 0 updated, 0 moved, 0 removed, 2 unchanged, 0 failed") {
			t.Fatalf("mcpvec %v: %s", args, out)
		}
		if after := storetest.FileState(t, db); after != before {
			t.Fatalf("mcpvec %v changed the file: %+v, was %+v", args, after, before)
		}
	}
	s = serveProc(t, db, []string{"MCPVEC_LOG=debug"}, "--watch", "--watch-quiet", "20ms", "--watch-rescan", "50ms")
	for deadline := time.Now().Add(time.Minute); strings.Count(s.Stderr.String(), "folders unchanged") < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no three rescans in a minute:\n%s", s.Stderr)
		}
	}
	s.Stop()
	if after := storetest.FileState(t, db); after != before {
		t.Fatalf("serve --watch rescans changed the file: %+v, was %+v", after, before)
	}
	os.Remove(filepath.Join(docs, "b.txt"))
	if out := mustRun(t, db, "sync"); !strings.Contains(out, "1 removed") {
		t.Fatalf("sync after a removal: %s", out)
	}
	if after := storetest.FileState(t, db); after.TxID <= before.TxID {
		t.Fatalf("a removal did not commit: %+v, was %+v", after, before)
	}
}

// TestForwardedSyncAndWatcherTogether writes files while the watcher syncs
// and a forwarded `mcpvec sync` runs: both write through the live library,
// one at a time, and nothing is lost or doubled.
func TestForwardedSyncAndWatcherTogether(t *testing.T) {
	t.Parallel()
	db, docs := libAndFolder(t, "docs")
	mustRun(t, db, "sync", docs)
	startServe(t, db, nil, "--watch", "--watch-quiet", "50ms", "--watch-rescan", "1h")
	done := make(chan result, 1)
	for i := range 30 {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("w%02d.txt", i)), fmt.Sprintf("Watched note %d on meadow %d.", i, i))
		if i == 10 {
			go func() { done <- mcpvec(t, db, "sync") }()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := <-done; r.code != 0 {
		t.Fatalf("forwarded sync: %+v", r)
	}
	mustRun(t, db, "sync") // whatever the watcher has not taken yet
	if n := len(lsSources(t, db)); n != 30 {
		t.Fatalf("%d documents, want 30", n)
	}
	libInfo(t, db, nil)
}

// tinyPDF returns a one-page PDF showing text (Helvetica, no compression).
func tinyPDF(text string) []byte {
	return minipdf.Write([]minipdf.Page{{text}}, minipdf.Options{})
}

// BenchmarkServeWatchEditedPDF measures change-to-searchable latency while
// serving: a PDF in a watched folder is rewritten with a new word, and the
// clock stops when an MCP search returns it. The default quiet period
// (1s) is part of the latency; extract-ms is the extraction alone.
// Run: go test -run '^$' -bench ServeWatchEditedPDF -benchtime 5x ./cmd/mcpvec/
func BenchmarkServeWatchEditedPDF(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "lib.db")
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	pdf := filepath.Join(docs, "report.pdf")
	os.WriteFile(pdf, tinyPDF("Quarterly report on harbour cranes, version zero."), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(pdf, old, old)
	mustRunEnv(b, db, nil, "sync", docs)
	s := startServe(b, db, nil, "--watch")
	var extract time.Duration
	i := 0
	for b.Loop() {
		i++
		word := fmt.Sprintf("zebra%dquokka", i)
		data := tinyPDF("Quarterly report on harbour cranes, revised with " + word + ".")
		if err := os.WriteFile(pdf, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if !waitSearch(b, s.c, word, word, time.Minute) {
			b.Fatalf("%s never became searchable:\n%s", word, s.Stderr.String())
		}
		b.StopTimer()
		extract += timeExtract(b, data)
		b.StartTimer()
	}
	b.ReportMetric(float64(extract.Milliseconds())/float64(i), "extract-ms")
}

func timeExtract(tb testing.TB, data []byte) time.Duration {
	ex, err := extract.New(context.Background(), extract.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ex.Close()
	start := time.Now()
	if _, err := ex.Extract(context.Background(), "report.pdf", data); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// TestLsRootsShowsFollowLinks: `ls --roots` says, per folder, whether links
// out of it are followed (remembered from `sync --follow-links`).
func TestLsRootsShowsFollowLinks(t *testing.T) {
	t.Parallel()
	db, dir := libAndFolder(t, "notes")
	writeFile(t, filepath.Join(dir, "a.txt"), "Lighthouse keepers trimmed the wicks nightly.")
	mustRun(t, db, "sync", "--follow-links", dir)
	out := mustRun(t, db, "ls", "--roots")
	if !strings.Contains(out, "LINKS OUT") || !strings.Contains(out, "followed") {
		t.Fatalf("ls --roots after sync --follow-links:\n%s", out)
	}
}
