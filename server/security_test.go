package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// do sends one HTTP request with optional Host override and headers and
// returns the status, headers and (at most 64 KiB of) body. SSE streams are
// cut after the first read so the call never blocks.
func do(tb testing.TB, method, url, host, body string, headers map[string]string) (int, http.Header, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadAtLeast(resp.Body, buf, 1)
	return resp.StatusCode, resp.Header, string(buf[:n])
}

func TestAuthRefusesEveryRoute(t *testing.T) {
	const token = "correct-horse-battery-staple"
	s := MustNew(t, newFakeLib(), Options{Token: token})
	base := MustServe(t, s)
	routes := []struct{ method, path, body string }{
		{"POST", "/mcp", initBody}, {"POST", "/mcp/", initBody}, {"GET", "/mcp", ""}, {"DELETE", "/mcp", ""},
		{"GET", "/sse", ""}, {"GET", "/sse/", ""}, {"POST", "/message?sessionId=x", initBody},
		{"GET", "/healthz", ""}, {"GET", "/", ""}, {"GET", "/anything", ""},
	}
	for _, r := range routes {
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
			code, h, _ := do(t, r.method, base+r.path, "", r.body, map[string]string{"Authorization": auth})
			if code != http.StatusUnauthorized {
				t.Errorf("%s %s with %q: status %d, want 401", r.method, r.path, auth, code)
			}
			if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer ") {
				t.Errorf("%s %s: WWW-Authenticate = %q", r.method, r.path, h.Get("WWW-Authenticate"))
			}
		}
	}
	ok := map[string]string{"Authorization": "Bearer " + token}
	if code, _, body := do(t, "GET", base+"/healthz", "", "", ok); code != 200 || body != "ok\n" {
		t.Errorf("healthz with token: %d %q", code, body)
	}
	// Real clients with the token work over both HTTP transports, and the
	// document links they get open without the token.
	for _, kind := range []transportKind{streamable, sse} {
		endpoint := map[transportKind]string{streamable: base + "/mcp", sse: base + "/sse"}[kind]
		c, _ := MustClient(t, s, kind, endpoint, ok, mcp.ProtocolVersion20250618)
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "pump primed"}), &sr)
		if len(sr.Results) == 0 || !strings.HasPrefix(sr.Results[0].URL, base+"/docs/d1/") {
			t.Fatalf("%s results = %+v", kind, sr.Results)
		}
		checkDocLink(t, sr.Results[0].URL, "application/pdf", "%PDF")
	}
}

func TestDocLinks(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Token: "tok"})
	base := MustServe(t, s)
	sig1, sig2 := signatureFor(testLinkKey, "d1"), signatureFor(testLinkKey, "d2")
	checkDocLink(t, base+"/docs/d2/"+sig2, "text/markdown; charset=utf-8", "# Notes")
	checkDocLink(t, base+"/docs/d1/"+sig1+"/manual.pdf", "application/pdf", "%PDF")

	code, h, _ := do(t, "GET", base+"/docs/d2/"+sig2, "", "", nil)
	if code != 200 || h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("markdown doc: %d, headers %v", code, h)
	}
	if code, h, _ := do(t, "GET", base+"/docs/d1/"+sig1, "", "", nil); code != 200 || h.Get("Content-Security-Policy") != "" {
		t.Errorf("pdf doc: %d, CSP %q (Chrome's viewer refuses sandboxed PDFs)", code, h.Get("Content-Security-Policy"))
	}
	other := MustNew(t, newFakeLib(), Options{LinkKey: []byte("another key entirely, 32 bytes!!")})
	refused := []string{
		"/docs/d1/" + sig2,                  // d2's signature does not open d1
		"/docs/d2/" + sig1,                  // nor the other way round
		"/docs/d1/" + other.signature("d1"), // a link signed with another key
		"/docs/d1/",                         // no signature
		"/docs/d1",                          // no signature
		"/docs/",                            // listing
		"/docs/d3/" + signatureFor(testLinkKey, "d3"), // valid signature, unknown document
		"/docs/d1/" + sig1 + "/x/y",                   // extra segments
		"/docs/..%2f..%2fetc%2fpasswd/" + sig1,
		"/docs/d1/" + sig1[:len(sig1)-1], // truncated signature
	}
	for _, p := range refused {
		code, _, body := do(t, "GET", base+p, "", "", nil)
		if code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
		if strings.Contains(body, "PDF") || strings.Contains(body, "Notes") {
			t.Errorf("GET %s leaked the document", p)
		}
	}
	// Traversal attempts are cleaned or refused by the router, never served.
	for _, p := range []string{"/docs/../healthz", "/docs/d1/" + sig1 + "/../../d2/" + sig1, "/docs/./d2/" + sig1} {
		code, _, body := do(t, "GET", base+p, "", "", nil)
		if code == 200 {
			t.Errorf("GET %s: 200 %q", p, body)
		}
	}
	if code, _, _ := do(t, "POST", base+"/docs/d1/"+sig1, "", "x", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST doc: %d, want 405", code)
	}
	if code, h, body := do(t, "HEAD", base+"/docs/d1/"+sig1, "", "", nil); code != 200 || body != "" || h.Get("Content-Length") == "" {
		t.Errorf("HEAD doc: %d %q %v", code, body, h)
	}
}

func TestTunnel(t *testing.T) {
	const public = "https://quiet-lake-1234.trycloudflare.com"
	s := MustNew(t, newFakeLib(), Options{PublicURL: public})
	base := MustServe(t, s)
	// cloudflared and ngrok forward to loopback with the public Host.
	tunnelHost := "quiet-lake-1234.trycloudflare.com"
	fwd := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": tunnelHost, "X-Forwarded-For": "203.0.113.7"}
	tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPHeaders(fwd), transport.WithStreamableHTTPHost(tunnelHost))
	if err != nil {
		t.Fatal(err)
	}
	c := clientOn(t, tr, mcp.ProtocolVersion20250618)
	var sr library.SearchResponse
	decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "impeller bolts"}), &sr)
	link := sr.Results[0].URL
	want := public + "/docs/d1/" + signatureFor(testLinkKey, "d1") + "#page=2"
	if link != want {
		t.Fatalf("url = %q, want %q", link, want)
	}
	// The link opens the document when it arrives through the tunnel.
	path := strings.TrimPrefix(strings.Split(link, "#")[0], public)
	code, h, body := do(t, "GET", base+path, tunnelHost, "", fwd)
	if code != 200 || h.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(body, "%PDF") {
		t.Errorf("doc through tunnel: %d %q %q", code, h.Get("Content-Type"), body)
	}
	// SSE through the tunnel too (its message endpoint is relative).
	sseTr, err := transport.NewSSE(base+"/sse/", transport.WithHeaders(fwd), transport.WithHTTPHost(tunnelHost))
	if err != nil {
		t.Fatal(err)
	}
	decodeResult(t, mcptest.CallTool(t, clientOn(t, sseTr, mcp.ProtocolVersion20250326), "fetch", map[string]any{"id": "d1:0"}), new(library.FetchResponse))

	// Any other foreign host is a DNS-rebinding attempt.
	for _, host := range []string{"evil.example", "quiet-lake-1234.trycloudflare.com.evil.example", "trycloudflare.com", tunnelHost + ":8443"} {
		if code, _, _ := do(t, "POST", base+"/mcp", host, initBody, nil); code != http.StatusForbidden {
			t.Errorf("host %q: %d, want 403", host, code)
		}
		if code, _, _ := do(t, "GET", base+path, host, "", nil); code != http.StatusForbidden {
			t.Errorf("doc with host %q: %d, want 403", host, code)
		}
	}
	if code, _, _ := do(t, "POST", base+"/mcp", tunnelHost+":443", initBody, nil); code != 200 {
		t.Errorf("public host with default port: %d, want 200", code)
	}
}

// TestForwardedHeadersWithoutPublicURL: anyone can send X-Forwarded-Host, so
// without --public-url it must not steer the links handed to clients
// (issue 15, finding 9).
func TestForwardedHeadersWithoutPublicURL(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{})
	base := MustServe(t, s)
	fwd := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "docs.example.org"}
	tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPHeaders(fwd))
	if err != nil {
		t.Fatal(err)
	}
	var fr library.FetchResponse
	decodeResult(t, mcptest.CallTool(t, clientOn(t, tr, ""), "fetch", map[string]any{"id": "d1:0"}), &fr)
	if want := base + "/docs/d1/" + signatureFor(testLinkKey, "d1") + "#page=1"; fr.URL != want {
		t.Errorf("url = %q, want %q", fr.URL, want)
	}
	// Without --public-url a tunnel's Host is refused.
	if code, _, _ := do(t, "POST", base+"/mcp", "docs.example.org", initBody, nil); code != http.StatusForbidden {
		t.Errorf("foreign host without public url: %d, want 403", code)
	}
}

func TestOriginCheck(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{PublicURL: "https://lib.example.net"})
	base := MustServe(t, s)
	for origin, want := range map[string]int{
		"https://evil.example":      403,
		"null":                      403,
		"http://lib.example.net":    403, // scheme matters
		"https://lib.example.net":   200,
		"http://localhost:6274":     200, // MCP Inspector
		"http://127.0.0.1:3000":     200,
		"https://chatgpt.com":       200,
		"https://chatgpt.com.evil.": 403,
	} {
		code, _, _ := do(t, "POST", base+"/mcp", "", initBody, map[string]string{"Origin": origin})
		if code != want {
			t.Errorf("origin %q: %d, want %d", origin, code, want)
		}
		if code, _, _ := do(t, "GET", base+"/sse", "", "", map[string]string{"Origin": origin}); (code == 403) != (want == 403) {
			t.Errorf("sse origin %q: %d", origin, code)
		}
	}
}

func TestSecretPath(t *testing.T) {
	secret := "k-" + strings.Repeat("aZ09_-", 6)[:32]
	s := MustNew(t, newFakeLib(), Options{SecretPath: secret})
	base := MustServe(t, s)
	for _, p := range []string{"/mcp", "/mcp/", "/sse", "/message?sessionId=x", "/k-wrong/mcp"} {
		if code, _, _ := do(t, "POST", base+p, "", initBody, nil); code != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", p, code)
		}
	}
	urls := s.URLs()
	if len(urls) != 2 || urls[0] != base+"/"+secret+"/mcp" || urls[1] != base+"/"+secret+"/sse" {
		t.Errorf("URLs = %v", urls)
	}
	for _, kind := range []transportKind{streamable, sse} {
		endpoint := base + "/" + secret + map[transportKind]string{streamable: "/mcp", sse: "/sse/"}[kind]
		c, _ := MustClient(t, s, kind, endpoint, nil, "")
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "bronze"}), &sr)
		if len(sr.Results) != 1 {
			t.Errorf("%s: results = %+v", kind, sr.Results)
		}
	}
}

func TestNewValidates(t *testing.T) {
	lib := newFakeLib()
	for _, tc := range []struct {
		name string
		opts Options
		want error
	}{
		{"public addr without token", Options{Addr: "0.0.0.0:8080"}, ErrNeedAuth},
		{"lan addr without token", Options{Addr: "192.168.1.5:8080"}, ErrNeedAuth},
		{"empty host", Options{Addr: ":8080"}, ErrNeedAuth},
		{"short secret", Options{SecretPath: "k-short"}, ErrBadOption},
		{"secret with slash", Options{SecretPath: "k-" + strings.Repeat("a", 31) + "/"}, ErrBadOption},
		{"relative public url", Options{PublicURL: "example.com"}, ErrBadOption},
		{"ftp public url", Options{PublicURL: "ftp://example.com"}, ErrBadOption},
		{"negative limit", Options{MaxResults: -1}, ErrBadOption},
		{"bad addr", Options{Addr: "nonsense"}, ErrBadOption},
	} {
		if _, err := New(lib, withQuiet(t, tc.opts)); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	for _, opts := range []Options{
		{Addr: "0.0.0.0:8080", Token: "t"},
		{Addr: "0.0.0.0:8080", InsecureNoAuth: true},
		{Addr: "[::1]:8080"},
		{Addr: "localhost:0", PublicURL: "https://x.ngrok-free.app/"},
	} {
		if _, err := New(lib, withQuiet(t, opts)); err != nil {
			t.Errorf("New(%+v): %v", opts, err)
		}
	}
}

func withQuiet(tb testing.TB, o Options) Options {
	o.Logger = quietLogger(tb)
	return o
}

func TestBodyLimit(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{MaxBodyBytes: 4096})
	base := MustServe(t, s)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8192) + `"}}`
	if code, _, _ := do(t, "POST", base+"/mcp", "", big, nil); code != http.StatusRequestEntityTooLarge && code != http.StatusBadRequest {
		t.Errorf("oversized body: %d, want 413 or 400", code)
	}
	if code, _, _ := do(t, "POST", base+"/mcp", "", initBody, nil); code != 200 {
		t.Errorf("small body: %d", code)
	}
}

func TestCORSForAllowedOrigins(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Token: "tok"})
	base := MustServe(t, s)
	pre := map[string]string{"Origin": "http://localhost:6274", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version"}
	code, h, _ := do(t, "OPTIONS", base+"/mcp", "", "", pre)
	if code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", code, h)
	}
	pre["Origin"] = "https://evil.example"
	if code, h, _ := do(t, "OPTIONS", base+"/mcp", "", "", pre); code != http.StatusForbidden || h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from evil origin: %d %v", code, h)
	}
	// The actual request still needs the token.
	if code, _, _ := do(t, "POST", base+"/mcp", "", initBody, map[string]string{"Origin": "http://localhost:6274"}); code != http.StatusUnauthorized {
		t.Errorf("cross-origin POST without token: %d, want 401", code)
	}
	code, h, _ = do(t, "POST", base+"/mcp", "", initBody, map[string]string{"Origin": "http://localhost:6274", "Authorization": "Bearer tok"})
	if code != 200 || h.Get("Access-Control-Allow-Origin") != "http://localhost:6274" || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("cross-origin POST with token: %d %v", code, h)
	}
}
