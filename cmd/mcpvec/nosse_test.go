package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server"
)

// TestServeSSEDeprecated is issue 39 item 5: serve announces that the
// legacy HTTP+SSE transport is deprecated, and --no-sse switches it off
// (410 Gone pointing to /mcp) while /mcp keeps working.
func TestServeSSEDeprecated(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest", writeFile(t, dir+"/a.txt", "lighthouse keepers trimmed the wicks nightly"))

	on := startServe(t, db, nil)
	mcpSearchJSON(t, on.c, "lighthouse") // past its start-up lines
	if !strings.Contains(on.Stdout.String(), server.SSEDeprecation+"\n") {
		t.Errorf("no deprecation line in the start-up lines:\n%s", on.Stdout)
	}
	base := strings.TrimSuffix(on.url, "/mcp")
	if code, _ := sseGet(t, base+"/sse", http.MethodGet); code != http.StatusOK {
		t.Errorf("GET /sse without --no-sse: %d, want 200", code)
	}
	on.Stop()

	off := startServe(t, db, nil, "--no-sse")
	if got, want := len(mcpSearchJSON(t, off.c, "lighthouse").Results), 1; got != want {
		t.Errorf("search over /mcp with --no-sse: %d results, want %d", got, want)
	}
	out := off.Stdout.String()
	if strings.Contains(out, "deprecated") || strings.Contains(out, "/sse\n") {
		t.Errorf("--no-sse still announces SSE:\n%s", out)
	}
	base = strings.TrimSuffix(off.url, "/mcp")
	for _, c := range []struct{ method, path string }{{http.MethodGet, "/sse"}, {http.MethodGet, "/sse/"}, {http.MethodPost, "/message?sessionId=x"}} {
		code, body := sseGet(t, base+c.path, c.method)
		if code != http.StatusGone || !strings.Contains(body, "--no-sse") || !strings.Contains(body, "/mcp") {
			t.Errorf("%s %s with --no-sse: %d %q, want 410 naming --no-sse and /mcp", c.method, c.path, code, body)
		}
	}
}

// sseGet sends one request and returns the status and the first bytes of
// the body (an SSE stream stays open, so it reads only what came first).
func sseGet(t *testing.T, url, method string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadAtLeast(resp.Body, buf, 1)
	return resp.StatusCode, string(buf[:n])
}
