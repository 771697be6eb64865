package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/telemetry"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

const secretPath = "k-abcdefghijklmnopqrstuvwxyz0123456789"

// served starts a server with a token and a secret path on a real library,
// its telemetry logging to the returned buffer.
func served(t *testing.T) (base string, tel *telemetry.Telemetry, logs *syncBuffer) {
	t.Helper()
	f := embeddedtest.New(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Cats are strongly attached to their homes and territory.")
	logs = &syncBuffer{}
	tel = telemetry.New(telemetry.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	base = serve(t, f.Lib, server.Options{Token: "tok", SecretPath: secretPath, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		LinkKey: bytes.Repeat([]byte{7}, 32), Observe: tel.Observe, Access: tel.Access, Metrics: tel.Handler()})
	return base, tel, logs
}

// serve serves lib with o on 127.0.0.1 until tb ends and returns its base
// URL.
func serve(tb testing.TB, lib server.Library, o server.Options) string {
	tb.Helper()
	srv, err := server.New(lib, o)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	tb.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// TestRefusedAndSecretFreeLines: a request without the token counts as a
// refused MCP request; the access lines name the route, never the secret
// path, and carry the tool call's outcome.
func TestRefusedAndSecretFreeLines(t *testing.T) {
	base, tel, logs := served(t)
	resp, err := http.Post(base+"/"+secretPath+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without the token: %s", resp.Status)
	}
	tr, err := transport.NewStreamableHTTP(base+"/"+secretPath+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok"}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": ""}
	if res, err := c.CallTool(ctx, req); err != nil || !res.IsError {
		t.Fatalf("empty query: %+v %v", res, err)
	}
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{
		`mcpvec_mcp_requests_total{outcome="refused",tool="unknown"} 1`,
		`mcpvec_mcp_requests_total{outcome="tool_error",tool="search"} 1`,
		`mcpvec_http_requests_total{code="401",method="POST",route="/mcp"} 1`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	if strings.Contains(logs.String(), secretPath) {
		t.Errorf("the secret path is in the log:\n%s", logs)
	}
	if !strings.Contains(logs.String(), "tool=search outcome=tool_error") {
		t.Errorf("no access line for the tool call:\n%s", logs)
	}
}

// TestOAuthTokenAnswersCountGrants: the token endpoint's answers count as
// OAuth grants issued (200) or refused.
func TestOAuthTokenAnswersCountGrants(t *testing.T) {
	tel := telemetry.New(telemetry.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, code := range []int{200, 400, 401, 200} {
		tel.Access(server.Request{Method: http.MethodPost, Route: "/oauth/token", Status: code})
	}
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{`mcpvec_oauth_grants_total{result="issued"} 2`, `mcpvec_oauth_grants_total{result="refused"} 2`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
}
