package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeReadOnlyMount is issue 15 finding 9 (a read-only library cannot
// be served): on a read-only mount serve falls back to read-only by itself;
// search, fetch and document links work; forwarded writes are refused
// clearly; a missing secret path is a clear error.
func TestServeReadOnlyMount(t *testing.T) {
	db, files := checkLibrary(t, 3)
	ro := filepath.Join(readOnlyMount(t, filepath.Dir(db)), filepath.Base(db))
	srv := serveProc(t, ro, nil)
	if s := waitOutput(t, srv.Stderr, "link key"); !strings.Contains(s, "read-only") || !strings.Contains(s, "link key") {
		t.Errorf("serve on a read-only mount should say it serves read-only with a run-only link key:\n%s", s)
	}
	c := connect(t, srv.url, "2025-06-18")
	sr := mcpSearchJSON(t, c, "harbour lanterns")
	if len(sr.Results) == 0 {
		t.Fatalf("search on a read-only library found nothing")
	}
	resp, err := http.Get(sr.Results[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("Harbour")) {
		t.Fatalf("document link %s: %d %q", sr.Results[0].URL, resp.StatusCode, body)
	}
	os.WriteFile(filepath.Join(files, "new.txt"), []byte("a new harbour note"), 0o644)
	if r := mcpvec(t, ro, "ingest", files); r.code == 0 || !strings.Contains(r.stderr, "writes are refused") {
		t.Fatalf("forwarded ingest on a read-only server: %+v", r)
	}
	if r := runChild(t, ro, nil, 30*time.Second, "serve", "--read-only", "--secret-path", "--addr", "127.0.0.1:0"); r.code == 0 || !strings.Contains(r.stderr, "no secret path") {
		t.Fatalf("serve --secret-path on a read-only library without one: %+v", r)
	}
}

// TestServeReadOnlyFlag: --read-only opens the library read-only; one
// never served has no link key yet and says so.
func TestServeReadOnlyFlag(t *testing.T) {
	db, _ := checkLibrary(t, 2)
	stderr := serveProc(t, db, nil, "--read-only").Stderr
	if !strings.Contains(waitOutput(t, stderr, "link key"), "link key") {
		t.Fatalf("read-only serve of a never-served library should warn about its link key:\n%s", stderr)
	}
}
