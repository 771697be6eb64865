package oauth

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

// seedGrant stores a grant for p (nil: the owner) on resource with one
// access token, and returns the token.
func seedGrant(t *testing.T, st Store, id string, p *identity.Person, client, resource string, used time.Time) string {
	t.Helper()
	tok, err := randomToken("mcpvec_at_")
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx Tx) error {
		g := Grant{ID: id, ClientID: "c-" + client, ClientName: client, Resource: resource, Scope: Scope, Created: used, LastUsed: used, Person: p}
		if err := putJSON(tx, kindGrant, id, &g); err != nil {
			return err
		}
		return putJSON(tx, kindToken, hashToken(tok), &tokenRecord{Kind: tokenAccess, GrantID: id, Expires: time.Now().Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestUsersAndRevokeUser: grants group by person; revoking one person by
// e-mail ends all their tokens at once and leaves the others'.
func TestUsersAndRevokeUser(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	res := e.url("/mcp")
	alice := &identity.Person{Issuer: "https://id.example", Subject: "1", Email: "alice@example.com", EmailVerified: true}
	bob := &identity.Person{Issuer: "https://id.example", Subject: "2", Email: "bob@example.com", EmailVerified: true}
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	a1 := seedGrant(t, e.st, "g1", alice, "ChatGPT", res, t0)
	a2 := seedGrant(t, e.st, "g2", alice, "Claude", e.url("/sse"), t0.Add(time.Minute))
	b1 := seedGrant(t, e.st, "g3", bob, "ChatGPT", res, t0.Add(2*time.Minute))
	seedGrant(t, e.st, "g4", nil, "Codex", res, time.Time{})

	us, err := Users(e.st)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(us), 3; got != want {
		t.Fatalf("%d users, want %d: %+v", got, want, us)
	}
	if u := us[1]; u.Label != "alice@example.com" || u.Grants != 2 || len(u.Clients) != 2 || len(u.Resources) != 2 || !u.LastUsed.Equal(t0.Add(time.Minute)) {
		t.Errorf("alice = %+v", u)
	}
	if us[0].Label != "bob@example.com" || us[2].Label != "owner" {
		t.Errorf("order = %s, %s, %s; want bob, alice, owner (most recent use first)", us[0].Label, us[1].Label, us[2].Label)
	}

	if n, err := RevokeUser(e.st, "Alice@Example.com"); err != nil || n != 2 {
		t.Fatalf("RevokeUser = %d, %v; want 2", n, err)
	}
	for tok, want := range map[string]int{a1: http.StatusUnauthorized, a2: http.StatusUnauthorized, b1: http.StatusOK} {
		req, _ := http.NewRequest("GET", res, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token of grant: %d, want %d", resp.StatusCode, want)
		}
	}
	if _, err := RevokeUser(e.st, "alice@example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second revoke: %v, want ErrNotFound", err)
	}
	if n, err := RevokeUser(e.st, bob.Key()); err != nil || n != 1 {
		t.Errorf("revoke by issuer#subject = %d, %v; want 1", n, err)
	}
}
