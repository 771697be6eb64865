package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/mcptest"
	"github.com/mcpvec/mcpvec/server/oauth"
)

// serveGroupOn serves g on ln until the test ends.
func serveGroupOn(t *testing.T, g *Group, ln net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// TestGroupOAuthPerLibrary serves two libraries, /a and /b, behind one
// authorization server: a token bound to /a/mcp opens /a and is refused at
// /b with a challenge naming /b's metadata; /mcp names no library.
func TestGroupOAuthPerLibrary(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	res := func(n string) []string { return []string{base + "/" + n + "/mcp", base + "/" + n + "/sse"} }
	a, err := oauth.New(oauth.Config{Issuer: base, Resources: append(res("a"), res("b")...), Store: ownerStore(t), Logger: quietLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	var srvs []*Server
	for _, n := range []string{"a", "b"} {
		r, err := a.Only(res(n)...)
		if err != nil {
			t.Fatal(err)
		}
		srvs = append(srvs, MustNew(t, newFakeLib(), Options{Addr: ln.Addr().String(), Mount: "/" + n, Auth: r}))
	}
	g, err := NewGroup(srvs...)
	if err != nil {
		t.Fatal(err)
	}
	serveGroupOn(t, g, ln)
	tok := mcptest.OAuthLogin(t, base, oauthTestPass, url.Values{"resource": {base + "/a/mcp"}})
	auth := map[string]string{"Authorization": "Bearer " + tok}
	if code, _, body := do(t, "POST", base+"/a/mcp", "", initBody, auth); code != http.StatusOK {
		t.Fatalf("token for /a at /a/mcp: %d %s", code, body)
	}
	code, h, _ := do(t, "POST", base+"/b/mcp", "", initBody, auth)
	if want := `resource_metadata="` + base + `/.well-known/oauth-protected-resource/b/mcp"`; code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), want) {
		t.Fatalf("token for /a at /b/mcp: %d %q, want 401 naming %s", code, h.Get("WWW-Authenticate"), want)
	}
	if code, _, _ := do(t, "POST", base+"/mcp", "", initBody, auth); code != http.StatusNotFound {
		t.Errorf("/mcp of a group: %d, want 404", code)
	}
}

// TestGroupRefusesBadMounts: a library name must be a plain path segment
// the server does not use itself, and each server of a group needs its own.
func TestGroupRefusesBadMounts(t *testing.T) {
	for _, m := range []string{"mcp", "/mcp", "/ui", "/a/b", "/../x", "/"} {
		if _, err := New(newFakeLib(), Options{Mount: m, Logger: quietLogger(t)}); !errors.Is(err, ErrBadOption) {
			t.Errorf("Mount %q: %v, want ErrBadOption", m, err)
		}
	}
	s1 := MustNew(t, newFakeLib(), Options{Mount: "/x"})
	s2 := MustNew(t, newFakeLib(), Options{Mount: "/x"})
	if _, err := NewGroup(s1, s2); !errors.Is(err, ErrBadOption) {
		t.Errorf("two servers at /x: %v", err)
	}
	if _, err := NewGroup(MustNew(t, newFakeLib(), Options{})); !errors.Is(err, ErrBadOption) {
		t.Errorf("a server without a mount: %v", err)
	}
}
