package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/oidc"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// allowList is a mutable Admit rule: the e-mail addresses it holds may use
// any resource.
type allowList struct {
	mu    sync.Mutex
	email map[string]bool
}

func (a *allowList) admit(p identity.Person, _ string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !p.EmailVerified || !a.email[p.Email] {
		return errors.New(p.Label() + " is not on the list")
	}
	return nil
}

func (a *allowList) set(email string, ok bool) {
	a.mu.Lock()
	a.email[email] = ok
	a.mu.Unlock()
}

// countingUpstream counts the answers it is asked to check.
type countingUpstream struct {
	Upstream
	mu        sync.Mutex
	exchanges int
}

func (c *countingUpstream) Exchange(ctx context.Context, code, verifier, nonce, redirectURI string) (identity.Person, error) {
	c.mu.Lock()
	c.exchanges++
	c.mu.Unlock()
	return c.Upstream.Exchange(ctx, code, verifier, nonce, redirectURI)
}

func (c *countingUpstream) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exchanges
}

// upstreamEnv is a test server whose people sign in at a real OpenID
// provider; only Ann is on its list.
func upstreamEnv(t *testing.T) (*testEnv, *oidctest.Provider, *allowList) {
	t.Helper()
	var kit *oidctest.Provider
	list := &allowList{email: map[string]bool{oidctest.Ann.Email: true}}
	e := newTestEnv(t, nil, func(c *Config) {
		kit = oidctest.Start(t, []string{c.Issuer + pathCallback})
		up, err := oidc.New(context.Background(), oidc.Config{Issuer: kit.Issuer, ClientID: kit.ClientID, ClientSecret: kit.ClientSecret})
		if err != nil {
			t.Fatal(err)
		}
		c.Upstream, c.Admit = &countingUpstream{Upstream: up}, list.admit
	})
	return e, kit, list
}

// upstreamSignIn starts an authorization in a new browser, signs u in at
// kit and returns the browser, the callback URL the provider sent it to,
// and the answer to it (the consent page, or a refusal).
func (e *testEnv) upstreamSignIn(kit *oidctest.Provider, u oidctest.User) (*http.Client, string, *http.Response, string) {
	e.t.Helper()
	b := e.browser()
	_, c := pkce("a")
	resp, _ := e.authorize(b, authParams(e.register(), c))
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), kit.Issuer) {
		e.t.Fatalf("authorize: %s to %q, want a redirect to the provider", resp.Status, resp.Header.Get("Location"))
	}
	back, err := kit.Authorize(context.Background(), resp.Header.Get("Location"), u.Username, u.Password)
	if err != nil {
		e.t.Fatal(err)
	}
	resp, page := e.get(b, back.String())
	return b, back.String(), resp, page
}

func (e *testEnv) get(b *http.Client, u string) (*http.Response, string) {
	e.t.Helper()
	resp, err := b.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// TestUpstreamSignIn signs Ann in at a real provider: the consent page
// names her, needs no passphrase, and the grant is hers; the provider's
// answer does not work twice nor in another browser.
func TestUpstreamSignIn(t *testing.T) {
	e, kit, _ := upstreamEnv(t)
	b, callback, resp, page := e.upstreamSignIn(kit, oidctest.Ann)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "as "+oidctest.Ann.Email+"?") {
		t.Fatalf("callback: %s, want the consent page naming Ann:\n%s", resp.Status, page)
	}
	up := e.srv.cfg.Upstream.(*countingUpstream)
	if resp, _ := e.get(b, callback); resp.StatusCode != http.StatusForbidden {
		t.Errorf("replayed state: %s, want 403", resp.Status)
	}
	if resp, _ := e.get(e.browser(), callback); resp.StatusCode != http.StatusForbidden {
		t.Errorf("answer in another browser: %s, want 403", resp.Status)
	}
	if got := up.count(); got != 1 {
		t.Errorf("the provider's answer was checked %d times, want once (replays refused before)", got)
	}
	resp, page = e.consent(b, parseConsent(t, page), "approve", "")
	if q := redirectQuery(t, resp, page); q.Get("code") == "" {
		t.Fatalf("no code after consent: %v", q)
	}
}

// TestUpstreamAdmit refuses a person Admit refuses: Bob at the callback,
// Ann at the token endpoint and at refresh once she is taken off the list.
func TestUpstreamAdmit(t *testing.T) {
	e, kit, list := upstreamEnv(t)
	if _, _, resp, page := e.upstreamSignIn(kit, oidctest.Bob); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(page, "not on the list") {
		t.Errorf("Bob at the callback: %s, want 403 naming the list:\n%s", resp.Status, page)
	}
	clientID, verifier, code := e.upstreamCode(kit, oidctest.Ann)
	status, out := e.token(exchangeForm(clientID, code, verifier))
	if status != http.StatusOK {
		t.Fatalf("Ann's token: %d %v", status, out)
	}
	if got := e.call(out["access_token"].(string)); got != http.StatusOK {
		t.Errorf("Ann's call: %d", got)
	}
	if l, err := List(e.st); err != nil || len(l.Grants) != 1 || l.Grants[0].Person == nil ||
		l.Grants[0].Person.Subject != oidctest.Ann.ID || l.Grants[0].Person.Email != oidctest.Ann.Email {
		t.Errorf("grants = %+v (%v), want one of Ann's", l.Grants, err)
	}
	list.set(oidctest.Ann.Email, false)
	status, out = e.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID},
		"refresh_token": {out["refresh_token"].(string)}})
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_grant")
	list.set(oidctest.Ann.Email, true)
	clientID, verifier, code = e.upstreamCode(kit, oidctest.Ann)
	list.set(oidctest.Ann.Email, false)
	status, out = e.token(exchangeForm(clientID, code, verifier))
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_grant")
}

// upstreamCode signs u in, consents, and returns the client, its PKCE
// verifier and the code.
func (e *testEnv) upstreamCode(kit *oidctest.Provider, u oidctest.User) (clientID, verifier, code string) {
	e.t.Helper()
	b := e.browser()
	clientID = e.register()
	verifier, c := pkce("a")
	resp, _ := e.authorize(b, authParams(clientID, c))
	back, err := kit.Authorize(context.Background(), resp.Header.Get("Location"), u.Username, u.Password)
	if err != nil {
		e.t.Fatal(err)
	}
	_, page := e.get(b, back.String())
	resp, page = e.consent(b, parseConsent(e.t, page), "approve", "")
	return clientID, verifier, redirectQuery(e.t, resp, page).Get("code")
}

// TestUpstreamWantsSignIn refuses the owner passphrase in place of the
// upstream sign-in: a consent form for a request nobody signed in to is
// not approved.
func TestUpstreamWantsSignIn(t *testing.T) {
	e, _, _ := upstreamEnv(t)
	b := e.browser()
	_, c := pkce("a")
	resp, _ := e.authorize(b, authParams(e.register(), c))
	loc, _ := url.Parse(resp.Header.Get("Location"))
	id := loc.Query().Get("state")
	var csrf string
	u, _ := url.Parse(e.url("/oauth/"))
	for _, ck := range b.Jar.Cookies(u) {
		if ck.Name == e.srv.consentCookieName(id) {
			csrf = ck.Value
		}
	}
	resp, page := e.consent(b, consentForm{request: id, csrf: csrf}, "approve", testPass)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "Sign in through your identity provider") {
		t.Errorf("approve without sign-in: %s\n%s", resp.Status, page)
	}
}

// TestBrowserUpstreamSignIn signs Ann in as a person does, in headless
// chromium with ChatGPT's real redirect URI: mcpvec sends the browser to
// the provider's login form, she types her name and password, the
// provider sends her back, the consent page names her and asks no
// passphrase, and Allow brings the browser back to ChatGPT with a code.
func TestBrowserUpstreamSignIn(t *testing.T) {
	e, _, _ := upstreamEnv(t)
	b := newSignInBrowser(t)
	_, challenge := pkce("d")
	q := authParams(e.register(chatGPTRedirect), challenge)
	q.Set("redirect_uri", chatGPTRedirect)
	var heading string
	var passphrase bool
	b.run(t, chromedp.Navigate(e.url(pathAuthorize)+"?"+q.Encode()), chromedp.WaitVisible("#username", chromedp.ByID),
		chromedp.SendKeys("#username", oidctest.Ann.Username, chromedp.ByID),
		chromedp.SendKeys("#password", oidctest.Ann.Password, chromedp.ByID),
		chromedp.Click(`button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`button[value="approve"]`, chromedp.ByQuery), chromedp.Text("h1", &heading, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("passphrase") !== null`, &passphrase))
	if !strings.Contains(heading, "as "+oidctest.Ann.Email+"?") || passphrase {
		t.Errorf("consent page: heading %q, passphrase field %v; want Ann named and no passphrase", heading, passphrase)
	}
	b.run(t, chromedp.Click(`button[value="approve"]`, chromedp.ByQuery))
	if got := b.await(t, chatGPTRedirect); got.Get("code") == "" || got.Get("state") != "st-1" || got.Get("iss") != e.ts.URL {
		t.Errorf("back at ChatGPT with %v, want a code, state and iss", got)
	}
}
