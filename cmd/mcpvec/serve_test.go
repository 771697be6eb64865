package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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
	if body, _ := getLink(t, sr.Results[0].URL); !strings.Contains(body, "Harbour") {
		t.Fatalf("document link %s: %q", sr.Results[0].URL, body)
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
	t.Parallel()
	db, _ := checkLibrary(t, 2)
	stderr := serveProc(t, db, nil, "--read-only").Stderr
	if !strings.Contains(waitOutput(t, stderr, "link key"), "link key") {
		t.Fatalf("read-only serve of a never-served library should warn about its link key:\n%s", stderr)
	}
}

// TestServeStdioWithRealBinary runs `mcpvec serve --stdio` as a child
// process, as Claude Desktop or Codex do, and drives it with mcp-go's stdio
// client: anything the binary printed to stdout besides MCP would break the
// session.
func TestServeStdioWithRealBinary(t *testing.T) {
	t.Parallel()
	_, db := tempLib(t)
	cats, _ := filepath.Abs("../../testdata/cats.pdf")
	mustRun(t, db, "ingest", "--url", "https://example.org/cats.pdf", cats)

	env := append(os.Environ(), "MCPVEC_TEST_MAIN=1", "MCPVEC_DB="+db)
	c, err := client.NewStdioMCPClient(os.Args[0], env, "serve", "--stdio")
	if err != nil {
		t.Fatal(err)
	}
	res := initialize(t, c, "2025-06-18")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res.ServerInfo.Name != "mcpvec" || !strings.Contains(res.Instructions, "1 document") {
		t.Fatalf("initialize = %+v", res)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
	sr := mcpSearchJSON(t, c, "are cats attached to their homes")
	if len(sr.Results) == 0 {
		t.Fatalf("search found nothing")
	}
	if r := sr.Results[0]; !strings.HasPrefix(r.URL, "https://example.org/cats.pdf#page=") || !strings.Contains(r.Title, "p. ") {
		t.Fatalf("top result = %+v", r)
	}
	if text, isErr := callTool(t, c, "fetch", map[string]any{"id": sr.Results[0].ID}); isErr || !strings.Contains(text, `"page_start"`) {
		t.Fatalf("fetch: %s", text)
	}
	if text, isErr := callTool(t, c, "fetch", map[string]any{"id": "nope:1"}); !isErr {
		t.Fatalf("unknown id should be a tool error: %s", text)
	}
}
