package server

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/policy"
)

// personAuth is an Authorizer whose bearer tokens name people: the token
// "tok-alice" is the Person people["alice"]. It serves no OAuth routes.
type personAuth struct{ people map[string]identity.Person }

func (a personAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }

func (a personAuth) Authenticate(r *http.Request) (identity.Person, error) {
	p, ok := a.people[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer tok-")]
	if !ok {
		return identity.Person{}, errNoSuchPerson
	}
	return p, nil
}

func (a personAuth) Challenge(w http.ResponseWriter, _ *http.Request, err error) {
	http.Error(w, err.Error(), http.StatusUnauthorized)
}

var errNoSuchPerson = errors.New("no such person")

// TestPolicyGuardsMCP: a Person the allow-list does not name gets 403 with
// an insufficient_scope challenge; one it names searches, and the access
// hook hears who; removing them from the file refuses their next request.
func TestPolicyGuardsMCP(t *testing.T) {
	alice := identity.Person{Issuer: "https://id.example", Subject: "1", Email: "alice@example.com", EmailVerified: true}
	bob := identity.Person{Issuer: "https://id.example", Subject: "2", Email: "bob@example.com", EmailVerified: true}
	path := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(path, []byte("papers read alice@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Open(path, policy.Options{Every: -1, Logger: quietLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []Request
	var calls []Call
	s := MustNew(t, newFakeLib(), Options{Auth: personAuth{map[string]identity.Person{"alice": alice, "bob": bob}},
		Policy: pol, Library: "papers", Access: func(r Request) { mu.Lock(); heard = append(heard, r); mu.Unlock() },
		Observe: func(c Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() }})
	base := MustServe(t, s)
	c, _ := MustClient(t, s, streamable, base+"/mcp", map[string]string{"Authorization": "Bearer tok-alice"}, "")
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": "impeller"}
	if _, err := c.CallTool(context.Background(), req); err != nil {
		t.Fatalf("alice's search: %v", err)
	}
	mu.Lock()
	var call *Call
	for _, r := range heard {
		if r.Call != nil {
			call = r.Call
			if r.Person.Key() != alice.Key() {
				t.Errorf("access line person = %q, want alice", r.Person.Key())
			}
		}
	}
	mu.Unlock()
	if call == nil || call.Person.Key() != alice.Key() || call.Tool != "search" {
		t.Fatalf("the search call was not heard with alice: %+v", call)
	}
	// Over legacy SSE the call runs after its HTTP request was answered:
	// the observer still hears it as alice's.
	sc, _ := MustClient(t, s, sse, base+"/sse", map[string]string{"Authorization": "Bearer tok-alice"}, "")
	if _, err := sc.CallTool(context.Background(), req); err != nil {
		t.Fatalf("alice's search over SSE: %v", err)
	}
	mu.Lock()
	if last := calls[len(calls)-1]; len(calls) != 2 || last.Person.Key() != alice.Key() {
		t.Errorf("%d calls observed, the SSE one as %q; want 2, alice's", len(calls), last.Person.Key())
	}
	mu.Unlock()

	code, h, body := do(t, "POST", base+"/mcp", "", initBody, map[string]string{"Authorization": "Bearer tok-bob"})
	if code != http.StatusForbidden || !strings.Contains(h.Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
		!strings.Contains(body, "bob@example.com may not read this library (papers)") {
		t.Fatalf("bob: %d %q %s, want 403 insufficient_scope naming him and the library", code, h.Get("WWW-Authenticate"), body)
	}

	if err := os.WriteFile(path, []byte("# nobody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(context.Background(), req); err == nil || !strings.Contains(err.Error(), "insufficient_scope") {
		t.Fatalf("alice's search after her removal: err = %v, want insufficient_scope (403)", err)
	}
}
