package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// TestTeamSignInRights: Ann, signed in through the real provider, reads
// the libraries the policy lets her, is refused the others' pages and
// every write without the write right, before its body is read; a rule
// removed refuses her next request; she sees her own activity only.
func TestTeamSignInRights(t *testing.T) {
	tm := serveTeam(t)
	c, resp, body := tm.signIn(t, oidctest.Ann)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `content="0; url=/papers/"`) {
		t.Fatalf("callback: %s\n%s", resp.Status, body)
	}
	resp, body = get(t, c, tm.URL+"/papers/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "tides.txt") || !strings.Contains(body, oidctest.Ann.Email) {
		t.Fatalf("papers as Ann: %s", resp.Status)
	}
	if strings.Contains(body, `href="/secret/"`) || !strings.Contains(body, `href="/notes/"`) || strings.Contains(body, "/papers/ui/add") ||
		strings.Contains(body, "papers.db") {
		t.Fatalf("papers as Ann lists secret, misses notes, offers Add or names the file:\n%s", body)
	}
	csrf := csrfOf(t, body)
	for _, path := range []string{"/secret/", "/secret/ui/search?q=salaries", "/papers/ui/add", "/papers/ui/connect"} {
		if resp, _ := get(t, c, tm.URL+path); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s as Ann: %s, want 403", path, resp.Status)
		}
	}
	if resp, _ := post(t, c, tm.URL+"/papers/ui/delete", url.Values{"csrf": {csrf}, "id": {"x"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("delete in papers as Ann: %s, want 403", resp.Status)
	}
	if status, sent := sendUpload(t, c, tm.URL+"/papers/ui/upload", csrf, "big.txt", 64<<20); status == http.StatusOK || sent >= 64<<20 {
		t.Errorf("upload to papers as Ann: %d after %d bytes, want refused unread", status, sent)
	}
	resp, body = get(t, c, tm.URL+"/notes/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "/notes/ui/add") || !strings.Contains(body, "/notes/ui/delete") {
		t.Fatalf("notes as Ann (write): %s, Add or Delete missing", resp.Status)
	}
	if len(tm.writes()) != 0 {
		t.Fatalf("refused writes were recorded: %+v", tm.writes())
	}
	if resp, body := upload(t, c, tm.URL+"/notes", csrfOf(t, body), [2]string{"rope.txt", "Rope: twelve metres of braided line.\n"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("upload to notes as Ann: %s\n%s", resp.Status, body)
	}
	if w := tm.writes(); len(w) != 1 || w[0] != "upload notes "+oidctest.Ann.Email {
		t.Fatalf("writes recorded for Ann's upload: %q", w)
	}
	resp, body = get(t, c, tm.URL+"/papers/ui/activity?user="+url.QueryEscape(oidctest.Bob.Email))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "tide tables") || strings.Contains(body, "bob&#39;s own query") {
		t.Fatalf("Ann's activity: %s\n%s", resp.Status, body)
	}
	tm.Policy.set(oidctest.Ann.Email, "papers")
	if resp, _ := get(t, c, tm.URL+"/papers/"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("papers after Ann's rule was removed: %s, want 403", resp.Status)
	}
}

// TestTeamOwnerSeesEveryone: the owner (testToken) sees every library in
// the switcher and everyone's activity, narrowed by ?user=.
func TestTeamOwnerSeesEveryone(t *testing.T) {
	tm := serveTeam(t)
	c := newClient(t)
	_, body := get(t, c, tm.URL+"/papers/ui/signin")
	post(t, c, tm.URL+"/papers/ui/signin", url.Values{"csrf": {csrfOf(t, body)}, "secret": {testToken}})
	if _, body = get(t, c, tm.URL+"/papers/"); !strings.Contains(body, "papers.db") {
		t.Fatalf("the owner's library page does not name its file:\n%s", body)
	}
	_, body = get(t, c, tm.URL+"/papers/ui/activity")
	if !strings.Contains(body, `href="/secret/"`) || !strings.Contains(body, "tide tables") || !strings.Contains(body, "bob&#39;s own query") {
		t.Fatalf("owner's activity misses a library or an entry:\n%s", body)
	}
	_, body = get(t, c, tm.URL+"/papers/ui/activity?user="+url.QueryEscape(oidctest.Bob.Email))
	if strings.Contains(body, "tide tables") || !strings.Contains(body, "bob&#39;s own query") {
		t.Fatalf("owner's activity of Bob:\n%s", body)
	}
}

// TestTeamSignInAttacks: a callback without the browser's binding
// cookie, with another browser's, a state used twice (a second code for
// the same state), a provider's refusal and a person with no rights at all
// sign nobody in.
func TestTeamSignInAttacks(t *testing.T) {
	tm := serveTeam(t)
	signedIn := func(c *http.Client) bool {
		resp, _ := get(t, c, tm.URL+"/papers/")
		return resp.StatusCode == http.StatusOK
	}
	t.Run("no cookie", func(t *testing.T) {
		authURL, _ := tm.start(t, newClient(t), "papers")
		c := newClient(t)
		if resp, _ := get(t, c, tm.authorize(t, authURL, oidctest.Ann)); resp.StatusCode != http.StatusBadRequest || signedIn(c) {
			t.Fatalf("callback without the binding cookie: %s", resp.Status)
		}
	})
	t.Run("foreign state", func(t *testing.T) {
		authURL, _ := tm.start(t, newClient(t), "papers") // the attacker's sign-in
		victim := newClient(t)
		tm.start(t, victim, "papers")
		if resp, _ := get(t, victim, tm.authorize(t, authURL, oidctest.Ann)); resp.StatusCode != http.StatusForbidden || signedIn(victim) {
			t.Fatalf("callback with another browser's state: %s", resp.Status)
		}
	})
	t.Run("replayed state", func(t *testing.T) {
		authURL, bind := tm.start(t, newClient(t), "papers")
		first, second := tm.authorize(t, authURL, oidctest.Ann), tm.authorize(t, authURL, oidctest.Ann)
		c := tm.withCookie(t, bind)
		if resp, _ := get(t, c, first); resp.StatusCode != http.StatusOK {
			t.Fatalf("first callback: %s", resp.Status)
		}
		c = tm.withCookie(t, bind)
		if resp, body := get(t, c, second); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "already used") || signedIn(c) {
			t.Fatalf("second code for the same state: %s", resp.Status)
		}
	})
	t.Run("provider refused", func(t *testing.T) {
		c := newClient(t)
		authURL, _ := tm.start(t, c, "papers")
		u, _ := url.Parse(authURL)
		back := tm.URL + "/ui/signin/callback?error=access_denied&state=" + url.QueryEscape(u.Query().Get("state"))
		if resp, _ := get(t, c, back); resp.StatusCode != http.StatusForbidden || signedIn(c) {
			t.Fatalf("provider's error: %s", resp.Status)
		}
	})
	t.Run("no rights", func(t *testing.T) {
		c, resp, body := tm.signIn(t, oidctest.Bob)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "may not see any library") {
			t.Fatalf("Bob's callback: %s\n%s", resp.Status, body)
		}
		for _, lib := range []string{"papers", "notes", "secret"} {
			if resp, _ := get(t, c, tm.URL+"/"+lib+"/"); resp.StatusCode != http.StatusSeeOther {
				t.Errorf("%s as Bob: %s, want the sign-in page", lib, resp.Status)
			}
		}
	})
}
