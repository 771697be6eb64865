package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/server/mcptest"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// TestServeOIDCSignIn drives `serve --oauth --oidc-issuer` as ChatGPT
// would, against a real OpenID provider: dynamic registration, authorize,
// sign-in at the provider, consent naming the person, token, and a search
// over MCP with the token. Provider flags without --oauth are refused.
func TestServeOIDCSignIn(t *testing.T) {
	dir, db := tempLib(t)
	mustRun(t, db, "ingest", writeFile(t, filepath.Join(dir, "tides.txt"), "tide tables for the harbour entrance, measured at the pier"))
	if r := mcpvecEnv(t, db, runtimeEnv(t), "serve", "--oidc-issuer", "https://id.example.com", "--oidc-client-id", "x"); r.code == 0 ||
		!strings.Contains(r.stderr, "--oidc-issuer needs --oauth") {
		t.Errorf("--oidc-issuer without --oauth: %+v", r)
	}
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	kit := oidctest.Start(t, []string{base + "/oauth/callback"})
	env := append(runtimeEnv(t), oidcSecretEnv+"="+kit.ClientSecret)
	allow := writeFile(t, filepath.Join(dir, "allow.txt"), "lib read "+oidctest.Ann.Email+"\n")
	srv := serveProc(t, db, env, "--addr", addr, "--public-url", base, "--oauth",
		"--oidc-issuer", kit.Issuer, "--oidc-client-id", kit.ClientID, "--allow", allow)
	token := mcptest.OIDCLogin(t, base, kit, oidctest.Ann, nil)
	tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	initialize(t, c, "")
	if res := mcpSearchJSON(t, c, "harbour").Results; len(res) != 1 || res[0].Title != "tides.txt" {
		t.Errorf("search with Ann's token: %+v", res)
	}
	waitOutput(t, srv.Stderr, oidctest.Ann.Email) // serve's log names who approved
}
