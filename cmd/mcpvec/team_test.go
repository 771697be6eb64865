package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/audit"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/store"
)

// seedGrants stores, in the library file db (not served yet), one grant
// with an access token for each person on resource, as a sign-in through
// the provider leaves them, and returns the tokens by e-mail.
func seedGrants(t *testing.T, db, resource string, people ...identity.Person) map[string]string {
	t.Helper()
	d, err := store.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	toks := map[string]string{}
	err = authStore{d}.Update(func(tx oauth.Tx) error {
		for i, p := range people {
			b := make([]byte, 32)
			rand.Read(b)
			tok := "mcpvec_at_" + hex.EncodeToString(b)
			id := "grant-" + p.Subject
			g, _ := json.Marshal(oauth.Grant{ID: id, ClientID: "c" + p.Subject, ClientName: []string{"ChatGPT", "Claude"}[i%2],
				Resource: resource, Scope: oauth.Scope, Created: time.Now(), Person: &p})
			sum := sha256.Sum256([]byte(tok))
			rec, _ := json.Marshal(map[string]any{"kind": "access", "grant_id": id, "expires": time.Now().Add(time.Hour)})
			if err := errorsJoin(tx.Put("grant", id, g), tx.Put("token", hex.EncodeToString(sum[:]), rec)); err != nil {
				return err
			}
			toks[p.Email] = tok
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// bearerClient is an MCP client of url sending tok; err is initialize's.
func bearerClient(t *testing.T, url, tok string) (*client.Client, error) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "team-test", Version: "1"}
	_, err = c.Initialize(ctx, init)
	return c, err
}

// postInit posts an MCP initialize with tok and returns the status, the
// WWW-Authenticate header and the body.
func postInit(t *testing.T, url, tok string) (int, string, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"team-test","version":"1"}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

func searchErr(c *client.Client, query string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": query}
	_, err := c.CallTool(ctx, req)
	return err
}

// TestTeamAllowListRevokeAudit drives serve --oauth --allow through the
// binary with two people holding grants: bob, not on the list, is refused
// at the MCP endpoint; alice searches until her line is removed, then is
// refused on her next request; `auth users` lists both, `auth revoke
// --user` ends bob's grants; `mcpvec audit` prints the run.
func TestTeamAllowListRevokeAudit(t *testing.T) {
	t.Parallel()
	db := oauthLibrary(t)
	alice := identity.Person{Issuer: "https://id.example", Subject: "1", Email: "alice@example.com", EmailVerified: true}
	bob := identity.Person{Issuer: "https://id.example", Subject: "2", Email: "bob@example.com", EmailVerified: true}
	toks := seedGrants(t, db, authTestPublic+"/mcp", alice, bob)
	allow := filepath.Join(filepath.Dir(db), "allow.txt")
	writeFile(t, allow, "# LIBRARY RIGHT WHO\nlib read alice@example.com\n")
	base := serveOAuth(t, db, nil, "--allow", allow, "--audit-queries")

	a, err := bearerClient(t, base+"/mcp", toks["alice@example.com"])
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	if err := searchErr(a, "bbolt transactions"); err != nil {
		t.Fatalf("alice's search: %v", err)
	}
	if code, h, body := postInit(t, base+"/mcp", toks["bob@example.com"]); code != 403 || !strings.Contains(h, "insufficient_scope") ||
		!strings.Contains(body, "bob@example.com may not read this library (lib)") {
		t.Fatalf("bob, not on the list: %d %q %s; want 403 insufficient_scope", code, h, body)
	}

	writeFile(t, allow, "# alice left\n")
	deadline := time.Now().Add(10 * time.Second)
	for searchErr(a, "one writer") == nil {
		if time.Now().After(deadline) {
			t.Fatal("alice still searches 10 s after her removal")
		}
		time.Sleep(200 * time.Millisecond)
	}

	users := mustRun(t, db, "auth", "users")
	if !strings.Contains(users, "alice@example.com") || !strings.Contains(users, "bob@example.com") || !strings.Contains(users, "lib") {
		t.Errorf("auth users:\n%s", users)
	}
	if out := mustRun(t, db, "auth", "revoke", "--user", "bob@example.com"); !strings.Contains(out, "Revoked 1 grant") {
		t.Errorf("auth revoke --user: %s", out)
	}
	if users := mustRun(t, db, "auth", "users"); strings.Contains(users, "bob@") {
		t.Errorf("bob still listed after his revocation:\n%s", users)
	}
	if code, h, _ := postInit(t, base+"/mcp", toks["bob@example.com"]); code != 401 || !strings.Contains(h, "invalid_token") {
		t.Errorf("bob after revocation: %d %q, want 401 invalid_token", code, h)
	}

	out := mustRun(t, db, "audit")
	t.Logf("mcpvec audit:\n%s", out)
	for _, want := range []string{"alice@example.com", "search", "bbolt transactions", "bob@example.com", "refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcpvec audit lacks %q", want)
		}
	}
	var es []audit.Entry
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, db, "audit", "--user", "alice@example.com", "--since", "1h", "--json")), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit --json line %q: %v", line, err)
		}
		es = append(es, e)
	}
	if len(es) < 2 || es[0].Action != audit.Search || es[0].Library != "lib" || es[0].Client != "team-test" || es[len(es)-1].Action != audit.Refuse {
		t.Errorf("alice's entries: %+v; want her search, then a refusal", es)
	}
	if _, err := os.Stat(db + ".audit/audit.jsonl"); err != nil {
		t.Errorf("the audit trail is not beside the library: %v", err)
	}
}

// TestAuditWebWritesAndFetches: with --audit DIR (no sign-in: the owner),
// a web upload and removal and an MCP search and fetch each leave one
// line; without --audit-queries the search text is not kept; `mcpvec
// audit` filters by time and refuses a --since it cannot read.
func TestAuditWebWritesAndFetches(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest", writeFile(t, filepath.Join(dir, "ops.txt"), "bbolt transactions: one writer at a time, many readers."))
	trail := filepath.Join(dir, "trail")
	s := startServe(t, db, nil, "--audit", trail)
	res := mcpSearchJSON(t, s.c, "bbolt writer").Results
	if len(res) == 0 {
		t.Fatal("no search result")
	}
	if _, isErr := mcpFetch(t, s.c, res[0].ID); isErr {
		t.Fatal("fetch failed")
	}
	w := &webClient{t: t, base: strings.TrimSuffix(s.url, "/mcp")}
	w.get("/ui/add")
	if code, body := w.upload(map[string]string{"herons.txt": "Herons stand still in shallow water.\n"}); code != 200 || !strings.Contains(body, "1 added") {
		t.Fatalf("upload = %d:\n%s", code, body)
	}
	id := docID(t, db, filepath.Join(db+".uploads", "herons.txt"))
	w.get("/ui/search?q=herons")
	w.get("/ui/doc/" + url.PathEscape(id))
	w.get("/")
	form := url.Values{"csrf": {w.csrf}, "id": {id}}
	if code, _, body := w.post("/ui/delete", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); code != http.StatusSeeOther {
		t.Fatalf("delete = %d:\n%s", code, body)
	}

	out := mustRun(t, db, "audit", "--audit", trail, "--since", "10m", "--json")
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if e.User != "owner" || e.Library != "lib" || e.Query != "" {
			t.Errorf("entry %+v: want the owner, library lib, no query text", e)
		}
		got = append(got, e.Action+" "+e.Target)
	}
	want := []string{"search ", "fetch " + res[0].ID, "upload " + id, "search ", "fetch " + id, "remove " + id}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("audit actions = %q, want %q", got, want)
	}
	if out := mustRun(t, db, "audit", "--audit", trail, "--since", time.Now().Add(time.Hour).Format(time.RFC3339)); !strings.Contains(out, "No audit entries") {
		t.Errorf("audit --since the future: %s", out)
	}
	if r := mcpvec(t, db, "audit", "--since", "yesterday"); r.code != 2 || !strings.Contains(r.stderr, "--since") {
		t.Errorf("audit --since yesterday: %+v, want a usage error", r)
	}
}
