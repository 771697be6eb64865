package server

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// The server with an OAuth authorization server (serve --oauth), its state
// in a real library file: every transport works with an access token, every
// route refuses a request without one, and the static token keeps working.

const oauthTestPass = "owner passphrase for server tests"

type storeAuth struct{ db *store.DB }

func (a storeAuth) View(fn func(oauth.Tx) error) error {
	return a.db.AuthView(func(tx *store.AuthTx) error { return fn(tx) })
}
func (a storeAuth) Update(fn func(oauth.Tx) error) error {
	return a.db.AuthUpdate(func(tx *store.AuthTx) error { return fn(tx) })
}

// oauthServe serves lib with OAuth on a fresh library file;
// issuer "" means the server's own base URL.
func oauthServe(t *testing.T, lib Library, opts Options, issuer string) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	if issuer == "" {
		issuer = base
	}
	a, err := oauth.New(oauth.Config{Issuer: issuer, Resources: []string{issuer + "/mcp", issuer + "/sse"},
		Store: ownerStore(t), Logger: quietLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Auth = a
	s := MustNew(t, lib, opts)
	return s, MustServeOn(t, s, ln)
}

// ownerStore is a fresh library file's sign-in records with the owner
// passphrase oauthTestPass set.
func ownerStore(t *testing.T) storeAuth {
	t.Helper()
	st := storeAuth{storetest.MustOpen(t, nil)}
	hash, err := oauth.HashPassphrase(oauthTestPass)
	if err == nil {
		err = oauth.SetPassphrase(st, hash)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// oauthLogin signs in at base as a new client, approving with the
// passphrase, and returns the access token.
func oauthLogin(t *testing.T, base string) string {
	t.Helper()
	return mcptest.OAuthLogin(t, base, oauthTestPass, nil)
}

func TestOAuthEndToEnd(t *testing.T) {
	s, base := oauthServe(t, newFakeLib(), Options{}, "")
	headers := map[string]string{"Authorization": "Bearer " + oauthLogin(t, base)}
	for _, kind := range []transportKind{streamable, sse} {
		for _, pc := range protocolCases {
			t.Run(string(kind)+"/"+pc.name, func(t *testing.T) {
				endpoint := map[transportKind]string{streamable: base + "/mcp", sse: base + "/sse"}[kind]
				c, init := MustClient(t, s, kind, endpoint, headers, pc.version)
				checkFlow(t, c, init, base)
			})
		}
	}
}

func TestOAuthRefusesEveryRoute(t *testing.T) {
	const static = "static-token-beside-oauth"
	s, base := oauthServe(t, newFakeLib(), Options{Token: static}, "")
	access := oauthLogin(t, base)
	routes := []struct{ method, path, body, meta string }{
		{"POST", "/mcp", initBody, "/mcp"}, {"POST", "/mcp/", initBody, "/mcp"}, {"GET", "/mcp", "", "/mcp"},
		{"GET", "/sse", "", "/sse"}, {"GET", "/sse/", "", "/sse"}, {"POST", "/message?sessionId=x", initBody, ""},
		{"GET", "/healthz", "", ""}, {"GET", "/anything", "", ""},
	}
	for _, r := range routes {
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + access + "x", "Basic " + access, access} {
			code, h, _ := do(t, r.method, base+r.path, "", r.body, map[string]string{"Authorization": auth})
			want := `Bearer resource_metadata="` + base + "/.well-known/oauth-protected-resource" + r.meta + `"`
			if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), want) {
				t.Errorf("%s %s with %q: %d %q, want 401 %q", r.method, r.path, auth, code, h.Get("WWW-Authenticate"), want)
			}
		}
	}
	for _, tok := range []string{access, static} {
		c, _ := MustClient(t, s, streamable, base+"/mcp", map[string]string{"Authorization": "Bearer " + tok}, mcp.ProtocolVersion20250618)
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "pump primed"}), &sr)
		if len(sr.Results) == 0 {
			t.Fatalf("search with %.12s…: no results", tok)
		}
	}
}

// TestOAuthTokenFromAnotherLibrary: two libraries served under the same
// public URL (the tunnel moved from one to the other): a token of the first
// means nothing to the second.
func TestOAuthTokenFromAnotherLibrary(t *testing.T) {
	_, baseA := oauthServe(t, newFakeLib(), Options{}, "")
	access := oauthLogin(t, baseA)
	_, baseB := oauthServe(t, newFakeLib(), Options{}, baseA)
	auth := map[string]string{"Authorization": "Bearer " + access}
	if code, _, _ := do(t, "POST", baseA+"/mcp", "", initBody, auth); code != http.StatusOK {
		t.Fatalf("token on its own library: %d", code)
	}
	if code, _, _ := do(t, "POST", baseB+"/mcp", "", initBody, auth); code != http.StatusUnauthorized {
		t.Fatalf("token on another library's server: %d, want 401", code)
	}
}

// TestNodeSDKWithOAuthToken runs the SDK's transport suite (both HTTP
// transports, both path spellings, a wrong token refused) with an access
// token.
func TestNodeSDKWithOAuthToken(t *testing.T) {
	node := requireNode(t)
	_, base := oauthServe(t, newNodeLibrary(), Options{}, "")
	expect, _ := json.Marshal(nodeExpect)
	out := runNode(t, node, []string{"MCPVEC_BASE=" + base, "MCPVEC_TOKEN=" + oauthLogin(t, base), "MCPVEC_EXPECT=" + string(expect)}, "sdk.test.mjs")
	if !strings.Contains(out, "refuses a client with a wrong token") {
		t.Errorf("the auth cases did not run:\n%s", out)
	}
}
