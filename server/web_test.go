package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestWebMount checks Options.Web is served at / and /ui/, outside the
// token, with "Origin: null" accepted only there; and that Options.Observe
// hears tool calls.
func TestWebMount(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "web "+r.URL.Path) })
	var mu sync.Mutex
	var calls []Call
	s := MustNew(t, newFakeLib(), Options{Token: "tok", Web: web, Observe: func(c Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() }})
	base := MustServe(t, s)
	do := func(method, path, origin string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(""))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/", "/ui/search"} {
		if code, body := do("GET", p, ""); code != 200 || body != "web "+p {
			t.Errorf("GET %s = %d %q, want the web handler without a token", p, code, body)
		}
	}
	if code, _ := do("POST", "/ui/delete", "null"); code != 200 {
		t.Errorf("POST /ui/delete with Origin: null = %d, want it passed to the web handler", code)
	}
	if code, _ := do("POST", "/mcp", "null"); code != http.StatusForbidden {
		t.Errorf("POST /mcp with Origin: null = %d, want 403", code)
	}
	if code, _ := do("GET", "/healthz", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /healthz without token = %d, want 401 (web must not open other routes)", code)
	}
	c, _ := MustClient(t, s, streamable, base+"/mcp", map[string]string{"Authorization": "Bearer tok"}, "")
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": "cats"}
	if _, err := c.CallTool(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].Tool != "search" || calls[0].Query != "cats" || calls[0].Client == "" {
		t.Fatalf("observed %+v, want one search call with a client name", calls)
	}
}
