package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/mcptest"
)

const (
	authTestPass   = "a long owner passphrase for tests"
	authTestPublic = "https://tunnel.mcpvec.test"
	nodeTestDir    = "../../server/testdata/node"
)

// requireNodeSDK skips without the Node SDK (see mcptest.RequireNode; CI
// sets MCPVEC_NODE_TESTS=required so a missing install fails).
func requireNodeSDK(t *testing.T) string {
	t.Helper()
	return mcptest.RequireNode(t, nodeTestDir, "@modelcontextprotocol/sdk")
}

// oauthLibrary makes a library with one document and an owner passphrase.
func oauthLibrary(t *testing.T) string {
	t.Helper()
	dir, db := tempLib(t)
	doc := filepath.Join(dir, "ops.txt")
	os.WriteFile(doc, []byte("bbolt transactions: one writer at a time, many readers; each sees a consistent snapshot."), 0o644)
	mustRun(t, db, "ingest", doc)
	out := mustRunEnv(t, db, []string{"MCPVEC_OWNER_PASSPHRASE=" + authTestPass}, "auth", "passphrase")
	if !strings.Contains(out, "passphrase set") {
		t.Fatalf("auth passphrase: %s", out)
	}
	return db
}

// serveOAuth starts `mcpvec serve --oauth` and returns its local base URL.
func serveOAuth(t *testing.T, db string, env []string, args ...string) string {
	t.Helper()
	srv := serveProc(t, db, env, append([]string{"--oauth", "--public-url", authTestPublic}, args...)...)
	t.Cleanup(func() { t.Logf("serve stderr:\n%s", srv.Stderr) })
	return strings.TrimSuffix(srv.url, "/mcp")
}

// tunnel forwards to local as cloudflared would: the public Host, and
// X-Forwarded-For/-Host/-Proto.
func tunnel(t *testing.T, local string) string {
	t.Helper()
	target, _ := url.Parse(local)
	pub, _ := url.Parse(authTestPublic)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.SetXForwarded()
		r.Out.Host = pub.Host
		r.Out.Header.Set("X-Forwarded-Host", pub.Host)
		r.Out.Header.Set("X-Forwarded-Proto", "https")
	}}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	return ts.URL
}

func runOAuthNode(t *testing.T, node, tunnelURL string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	expect, _ := json.Marshal(map[string]string{"query": "bbolt transactions", "fetchTextIncludes": "one writer at a time"})
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "oauth.test.mjs")
	cmd.Dir = nodeTestDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MCPVEC_PUBLIC="+authTestPublic, "MCPVEC_TUNNEL="+tunnelURL,
		"MCPVEC_PASSPHRASE="+authTestPass, "MCPVEC_EXPECT="+string(expect))
	cmd.Env = append(cmd.Env, extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node oauth.test.mjs: %v\n%s", err, out)
	}
	t.Logf("node oauth.test.mjs:\n%s", out)
	return string(out)
}

func TestAuthNodeSDKRegistrationOverTunnel(t *testing.T) {
	node := requireNodeSDK(t)
	db := oauthLibrary(t)
	tun := tunnel(t, serveOAuth(t, db, nil))
	runOAuthNode(t, node, tun)
	// The grant was recorded, then revoked by the client.
	var l struct {
		Clients []struct{ Name string }
		Grants  []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "auth", "ls", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Clients) != 1 || l.Clients[0].Name != "mcpvec SDK test" || len(l.Grants) != 0 {
		t.Fatalf("auth ls after the flow: %+v", l)
	}
}

func TestAuthNodeSDKMetadataDocumentOverTunnel(t *testing.T) {
	node := requireNodeSDK(t)
	db := oauthLibrary(t)
	mux := http.NewServeMux()
	docs := httptest.NewTLSServer(mux)
	t.Cleanup(docs.Close)
	clientID := docs.URL + "/mcpvec-test-client.json"
	mux.HandleFunc("/mcpvec-test-client.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"client_id": clientID, "client_name": "Metadata Test Client",
			"redirect_uris": []string{"http://127.0.0.1:9/callback"}, "token_endpoint_auth_method": "none"})
	})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: docs.Certificate().Raw}), 0o644)
	local := serveOAuth(t, db, []string{"SSL_CERT_FILE=" + ca, insecureLoopbackClientsEnv + "=1"})
	runOAuthNode(t, node, tunnel(t, local), "MCPVEC_CLIENT_METADATA_URL="+clientID)
	out := mustRun(t, db, "auth", "ls")
	if !strings.Contains(out, "Metadata Test Client") {
		t.Fatalf("auth ls does not name the metadata-document client:\n%s", out)
	}
}

// TestAuthCommandsWhileServing approves a sign-in with `mcpvec auth approve`
// (handed to the running server), lists the grant and revokes it with
// `mcpvec auth revoke --all`: the token stops working on the next request.
func TestAuthCommandsWhileServing(t *testing.T) {
	node := requireNodeSDK(t)
	db := oauthLibrary(t)
	tun := tunnel(t, serveOAuth(t, db, nil))
	argv, _ := json.Marshal([]string{os.Args[0], "auth", "approve"})
	out := runOAuthNode(t, node, tun, "MCPVEC_APPROVE_ARGV="+string(argv), "MCPVEC_KEEP_GRANT=1",
		"MCPVEC_TEST_MAIN=1", "MCPVEC_DB="+db)
	_, token, ok := strings.Cut(out, "ACCESS_TOKEN=")
	if !ok {
		t.Fatalf("no token printed:\n%s", out)
	}
	token = strings.Fields(token)[0]
	if ls := mustRun(t, db, "auth", "ls"); !strings.Contains(ls, "mcpvec SDK test") || strings.Contains(ls, "never") {
		t.Errorf("auth ls does not show a used grant:\n%s", ls)
	}
	call := func() int {
		req, _ := http.NewRequest(http.MethodPost, tun+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := call(); got == http.StatusUnauthorized {
		t.Fatalf("token refused before revocation")
	}
	// A new passphrase is handed to the server without its hash in any log.
	r := mcpvecEnv(t, db, []string{"MCPVEC_OWNER_PASSPHRASE=another long passphrase"}, "auth", "passphrase")
	if r.code != 0 || !strings.Contains(r.stdout, "passphrase set") || !strings.Contains(r.stderr, "running `mcpvec serve`") {
		t.Fatalf("auth passphrase while serving: %+v", r)
	}
	if out := mustRun(t, db, "auth", "revoke", "--all"); !strings.Contains(out, "Revoked 1 grant") {
		t.Fatalf("auth revoke --all: %s", out)
	}
	if got := call(); got != http.StatusUnauthorized {
		t.Fatalf("token after auth revoke --all: %d, want 401", got)
	}
	if r := mcpvec(t, db, "auth", "approve", "ZZZZ-ZZZZ"); r.code == 0 || !strings.Contains(r.stderr, "no sign-in request") {
		t.Errorf("approving an unknown code: %+v", r)
	}
}

func TestAuthRefusals(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "lib.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", "--oauth"}, "--oauth needs --public-url"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--oauth", "--public-url", "http://example.com"}, "must be https"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--oauth", "--public-url", "https://example.com/base"}, "base URL"},
		{[]string{"auth", "revoke"}, "Usage"},
		{[]string{"auth", "nope"}, "unknown command"},
	} {
		if r := mcpvec(t, db, tc.args...); r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("mcpvec %v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := mcpvecEnv(t, db, []string{"MCPVEC_OWNER_PASSPHRASE=short"}, "auth", "passphrase"); r.code == 0 || !strings.Contains(r.stderr, "too short") {
		t.Errorf("short passphrase: %+v", r)
	}
}

// TestAuthPassphraseWithoutInput: with stdin at its end and no variable
// set, `auth passphrase` says nothing was given; it said "passphrase too
// short" (QA after issue 34).
func TestAuthPassphraseWithoutInput(t *testing.T) {
	t.Parallel()
	db := oauthLibrary(t)
	r := mcpvec(t, db, "auth", "passphrase") // stdin is /dev/null
	if r.code == 0 || !strings.Contains(r.stderr, "no passphrase given") {
		t.Fatalf("auth passphrase </dev/null: %+v", r)
	}
}
