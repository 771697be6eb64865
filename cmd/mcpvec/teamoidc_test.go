package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/server/mcptest"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// refusedSignIn registers a connector at base, asks for resource and signs
// user in at kit; it returns the status and page the sign-in ends on.
func refusedSignIn(t *testing.T, base, resource string, kit *oidctest.Provider, user oidctest.User) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "e2e", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	sum := sha256.Sum256([]byte(strings.Repeat("v", 43)))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {resource}}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = kit.SignIn(context.Background(), browser, base+"/oauth/authorize?"+q.Encode(), user.Username, user.Password)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(page)
}

// TestTeamRealProvider is issue 40's closing run, through the binary and a
// real OpenID provider: two libraries, two people with different rights.
// Ann reads both; Bob reads papers and, until the owner removes his line,
// notes: his next notes request is refused (403), as is a new sign-in for
// notes; `auth revoke --user` ends his papers grant; `mcpvec audit`
// prints the run.
func TestTeamRealProvider(t *testing.T) {
	dir := t.TempDir()
	papers, notes := filepath.Join(dir, "papers.db"), filepath.Join(dir, "notes.db")
	mustRun(t, papers, "ingest", writeFile(t, filepath.Join(dir, "tides.txt"), "tide tables for the harbour entrance, measured at the pier"))
	mustRun(t, notes, "ingest", writeFile(t, filepath.Join(dir, "minutes.txt"), "minutes of the harbour board: the pier closes in winter"))
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	kit := oidctest.Start(t, []string{base + "/oauth/callback"})
	env := append(runtimeEnv(t), oidcSecretEnv+"="+kit.ClientSecret)
	if r := mcpvecEnv(t, papers, env, "serve", "--addr", "127.0.0.1:0", "--public-url", base, "--oauth", "--oidc-issuer", kit.Issuer,
		"--oidc-client-id", kit.ClientID); r.code == 0 || !strings.Contains(r.stderr, "--oidc-issuer needs --allow") {
		t.Errorf("--oidc-issuer without --allow: exit %d, %s", r.code, r.stderr)
	}
	allow := writeFile(t, filepath.Join(dir, "allow.txt"), "*      read  ann@example.com\npapers read  @other.example\nnotes  read  bob@other.example\n")
	serveProc(t, papers, env, "--addr", addr, "--public-url", base, "--oauth", "--oidc-issuer", kit.Issuer, "--oidc-client-id", kit.ClientID,
		"--allow", allow, "--audit-queries", "--library", "papers="+papers, "--library", "notes="+notes)
	login := func(u oidctest.User, lib string) string {
		return mcptest.OIDCLogin(t, base, kit, u, url.Values{"resource": {base + "/" + lib + "/mcp"}})
	}
	annPapers, annNotes := login(oidctest.Ann, "papers"), login(oidctest.Ann, "notes")
	bobPapers, bobNotes := login(oidctest.Bob, "papers"), login(oidctest.Bob, "notes")
	search := func(tok, lib, q string) error {
		c, err := bearerClient(t, base+"/"+lib+"/mcp", tok)
		if err == nil {
			err = searchErr(c, q)
		}
		return err
	}
	for _, c := range []struct{ who, tok, lib string }{{"ann", annPapers, "papers"}, {"ann", annNotes, "notes"}, {"bob", bobPapers, "papers"}, {"bob", bobNotes, "notes"}} {
		if err := search(c.tok, c.lib, "harbour pier"); err != nil {
			t.Fatalf("%s on %s before the edit: %v", c.who, c.lib, err)
		}
	}

	if err := os.WriteFile(allow, []byte("*      read  ann@example.com\npapers read  @other.example\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitRefused(t, base+"/notes/mcp", bobNotes)
	if code, page := refusedSignIn(t, base, base+"/notes/mcp", kit, oidctest.Bob); code != http.StatusForbidden || !strings.Contains(page, "may not read library notes") {
		t.Errorf("Bob's new sign-in for notes: %d\n%s", code, page)
	}
	if err := search(bobPapers, "papers", "tide tables"); err != nil {
		t.Errorf("Bob on papers after the notes edit: %v", err)
	}
	if err := search(annNotes, "notes", "board minutes"); err != nil {
		t.Errorf("Ann on notes: %v", err)
	}

	users := mustRunEnv(t, papers, env, "auth", "users")
	t.Logf("mcpvec auth users:\n%s", users)
	if !strings.Contains(users, "ann@example.com") || !strings.Contains(users, "bob@other.example") || !strings.Contains(users, "papers,notes") {
		t.Errorf("auth users lacks a person or a library")
	}
	if out := mustRunEnv(t, papers, env, "auth", "revoke", "--user", "bob@other.example"); !strings.Contains(out, "Revoked 2 grant") {
		t.Errorf("auth revoke --user: %s", out)
	}
	if code, h, _ := postInit(t, base+"/papers/mcp", bobPapers); code != http.StatusUnauthorized || !strings.Contains(h, "invalid_token") {
		t.Errorf("Bob on papers after revocation: %d %q, want 401 invalid_token", code, h)
	}
	if err := search(annPapers, "papers", "tide"); err != nil {
		t.Errorf("Ann after Bob's revocation: %v", err)
	}

	trail := mustRunEnv(t, papers, env, "audit") + mustRunEnv(t, notes, env, "audit")
	t.Logf("mcpvec audit (papers, then notes):\n%s", trail)
	for _, want := range []string{"signin", "refused  /mcp", "refused  sign-in", "forbidden", "harbour pier", "board minutes"} {
		if !strings.Contains(trail, want) {
			t.Errorf("the audit trail lacks %q", want)
		}
	}
}

// waitRefused waits (10 s at most) until tok is refused at url with 403
// insufficient_scope.
func waitRefused(t *testing.T, url, tok string) {
	t.Helper()
	for i := 0; i < 50; i++ {
		code, h, _ := postInit(t, url, tok)
		if code == http.StatusForbidden && strings.Contains(h, "insufficient_scope") {
			return
		}
		if i == 49 {
			t.Fatalf("still %d at %s 10 s after the edit", code, url)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
