package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// TestServeWebTeamSignIn drives the web page of `serve --oauth
// --oidc-issuer --allow` with two libraries through the built binary as a
// person's browser would: "Sign in with …", the real provider's login,
// back at PUBLIC_URL/ui/signin/callback; Ann, allowed to read papers only,
// gets papers' page without its Add link, a 403 at notes, and her own
// activity; Bob, in no rule, gets no session.
func TestServeWebTeamSignIn(t *testing.T) {
	papers, notes := twoLibraries(t)
	allow := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(allow, []byte("papers read "+oidctest.Ann.Email+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	kit := oidctest.Start(t, []string{base + "/oauth/callback", base + "/ui/signin/callback"})
	serveProc(t, papers, append(runtimeEnv(t), oidcSecretEnv+"="+kit.ClientSecret), "--addr", addr, "--public-url", base, "--oauth",
		"--oidc-issuer", kit.Issuer, "--oidc-client-id", kit.ClientID, "--allow", allow,
		"--library", "papers="+papers, "--library", "notes="+notes)
	c := webSignIn(t, base, kit, oidctest.Ann, http.StatusOK)
	if code, body := webGet(t, c, base+"/papers/"); code != http.StatusOK || !strings.Contains(body, "tides.txt") ||
		strings.Contains(body, "/papers/ui/add") || strings.Contains(body, `href="/notes/"`) {
		t.Fatalf("papers as Ann: %d\n%s", code, body)
	}
	if code, _ := webGet(t, c, base+"/notes/"); code != http.StatusForbidden {
		t.Fatalf("notes as Ann: %d, want 403", code)
	}
	if code, body := webGet(t, c, base+"/papers/ui/activity"); code != http.StatusOK || !strings.Contains(body, "Your activity") {
		t.Fatalf("Ann's activity: %d\n%s", code, body)
	}
	bob := webSignIn(t, base, kit, oidctest.Bob, http.StatusForbidden)
	if code, _ := webGet(t, bob, base+"/papers/"); code != http.StatusSeeOther {
		t.Fatalf("papers as Bob: %d, want the sign-in page", code)
	}
}

// webSignIn signs u in on the web page at base through kit, checks the
// callback's status and returns the browser.
func webSignIn(t *testing.T, base string, kit *oidctest.Provider, u oidctest.User, want int) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if code, body := webGet(t, c, base+"/papers/ui/signin"); code != http.StatusOK || !strings.Contains(body, "Sign in with localhost") {
		t.Fatalf("sign-in page: %d, no provider button\n%s", code, body)
	}
	resp, err := c.Get(base + "/papers/ui/signin/start")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, err := kit.Authorize(context.Background(), resp.Header.Get("Location"), u.Username, u.Password)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := webGet(t, c, back.String()); code != want {
		t.Fatalf("callback for %s: %d, want %d\n%s", u.Username, code, want, body)
	}
	return c
}

func webGet(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestProviderName: the sign-in button names common providers, others by
// host, and a look-alike host is not the provider it imitates.
func TestProviderName(t *testing.T) {
	for issuer, want := range map[string]string{
		"https://accounts.google.com":                   "Google",
		"https://login.microsoftonline.com/tenant/v2.0": "Microsoft",
		"https://acme.okta.com":                         "Okta",
		"https://notokta.com":                           "notokta.com",
		"https://id.example.com/realms/team":            "id.example.com",
	} {
		if got := providerName(issuer); got != want {
			t.Errorf("providerName(%q) = %q, want %q", issuer, got, want)
		}
	}
}
