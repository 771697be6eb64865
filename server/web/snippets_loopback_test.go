package web

import (
	"net/http/httptest"
	"testing"
)

// TestConnectLoopbackPublicURL: a --public-url on loopback (serve --oauth
// for testing) is no more reachable by ChatGPT than no public URL, so the
// Connect page sends it through a tunnel rather than to 127.0.0.1.
func TestConnectLoopbackPublicURL(t *testing.T) {
	for _, pub := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"} {
		h := &Handler{opts: Options{PublicURL: pub, MCPPath: "/mcp", Addr: "127.0.0.1:8080"}}
		d := h.connectData(httptest.NewRequest("GET", pub+"/ui/connect", nil))
		if d.Public || d.TunnelMCPURL != tunnelPlaceholder+"/mcp" {
			t.Errorf("--public-url %s: Public %v, connector URL %q; want a tunnel's", pub, d.Public, d.TunnelMCPURL)
		}
	}
	h := &Handler{opts: Options{PublicURL: "https://lib.example.org", MCPPath: "/mcp", Addr: "127.0.0.1:8080"}}
	if d := h.connectData(httptest.NewRequest("GET", "https://lib.example.org/ui/connect", nil)); !d.Public {
		t.Errorf("an https public URL is not taken as public")
	}
}
