package oauth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func getJSONDoc(t *testing.T, u string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestAuthDiscovery(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	resp, err := http.Get(e.url("/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="` + e.ts.URL + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("got %s %q, want 401 %q", resp.Status, resp.Header.Get("WWW-Authenticate"), want)
	}
	_, prm := getJSONDoc(t, e.url("/.well-known/oauth-protected-resource/mcp"))
	if prm["resource"] != e.ts.URL+"/mcp" || prm["authorization_servers"].([]any)[0] != e.ts.URL {
		t.Fatalf("resource metadata = %v", prm)
	}
	if status, _ := getJSONDoc(t, e.url("/.well-known/oauth-protected-resource/other")); status != http.StatusNotFound {
		t.Errorf("metadata for an unknown resource: %d, want 404", status)
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		_, as := getJSONDoc(t, e.url(p))
		if as["issuer"] != e.ts.URL || as["client_id_metadata_document_supported"] != true ||
			as["authorization_response_iss_parameter_supported"] != true || as["registration_endpoint"] != e.ts.URL+pathRegister {
			t.Fatalf("%s = %v", p, as)
		}
		if m := as["code_challenge_methods_supported"].([]any); len(m) != 1 || m[0] != "S256" {
			t.Errorf("code_challenge_methods_supported = %v", m)
		}
		if m := as["token_endpoint_auth_methods_supported"].([]any); len(m) != 1 || m[0] != "none" {
			t.Errorf("token_endpoint_auth_methods_supported = %v", m)
		}
	}
}

func TestAuthFlowRefreshRevoke(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	clientID, access, refresh := e.tokens()
	if got := e.call(access); got != http.StatusOK {
		t.Fatalf("call with access token: %d", got)
	}
	if got := e.call(refresh); got != http.StatusUnauthorized {
		t.Fatalf("a refresh token used as an access token: %d, want 401", got)
	}
	if resp, err := http.PostForm(e.url(pathRevoke), url.Values{"token": {"mcpvec_at_unknown"}}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoking an unknown token: %v %v, want 200", err, resp)
	}
	status, out := e.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {refresh}})
	if status != http.StatusOK || out["refresh_token"] == refresh {
		t.Fatalf("refresh: %d %v", status, out)
	}
	access2 := out["access_token"].(string)
	if got := e.call(access2); got != http.StatusOK {
		t.Fatalf("call with refreshed token: %d", got)
	}
	resp, err := http.PostForm(e.url(pathRevoke), url.Values{"token": {out["refresh_token"].(string)}, "client_id": {clientID}})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	for _, tok := range []string{access, access2} {
		if got := e.call(tok); got != http.StatusUnauthorized {
			t.Errorf("call after revocation: %d, want 401", got)
		}
	}
	e.st.mu.Lock()
	defer e.st.mu.Unlock()
	for kind, recs := range e.st.data {
		for k, v := range recs {
			for _, tok := range []string{access, refresh, access2} {
				if strings.Contains(k, tok) || strings.Contains(string(v), tok) {
					t.Fatalf("a token is stored in clear in %s/%s", kind, k)
				}
			}
		}
	}
}

func TestAuthPKCEMismatch(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, _, code := e.newCode()
	other, _ := pkce("b")
	status, out := e.token(exchangeForm(id, code, other))
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_grant")
}

func TestAuthPlainPKCERefused(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id := e.register()
	for name, q := range map[string]url.Values{
		"plain":   {"code_challenge_method": {"plain"}, "code_challenge": {strings.Repeat("x", 43)}},
		"missing": {"code_challenge_method": {""}, "code_challenge": {""}},
	} {
		p := authParams(id, "")
		for k, v := range q {
			p[k] = v
		}
		resp, body := e.authorize(e.browser(), p)
		loc := redirectQuery(t, resp, body)
		if loc.Get("error") != "invalid_request" || loc.Get("code") != "" || loc.Get("state") != "st-1" {
			t.Errorf("%s PKCE: redirect %v, want error=invalid_request with state", name, loc)
		}
	}
}

func TestAuthCodeReplayRevokesTokens(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, v, code := e.newCode()
	status, out := e.token(exchangeForm(id, code, v))
	if status != http.StatusOK {
		t.Fatalf("first exchange: %d %v", status, out)
	}
	status, again := e.token(exchangeForm(id, code, v))
	wantOAuthError(t, status, again, http.StatusBadRequest, "invalid_grant")
	if got := e.call(out["access_token"].(string)); got != http.StatusUnauthorized {
		t.Errorf("token from a replayed code still works: %d", got)
	}
}

func TestAuthCodeForAnotherClient(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	_, v, code := e.newCode()
	thief := e.register()
	status, out := e.token(exchangeForm(thief, code, v))
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_grant")
}

func TestAuthUnregisteredRedirect(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	_, _, resp, body := e.authorizeWith(e.browser(), "redirect_uri", "https://evil.example/cb")
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || strings.Contains(body, `name="csrf"`) {
		t.Fatalf("unregistered redirect: %s Location=%q", resp.Status, resp.Header.Get("Location"))
	}
	// Registration refuses redirect URIs that are neither https nor loopback.
	body2, _ := json.Marshal(map[string]any{"redirect_uris": []string{"http://evil.example/cb"}})
	r2, err := http.Post(e.url(pathRegister), "application/json", strings.NewReader(string(body2)))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(r2.Body).Decode(&out)
	r2.Body.Close()
	wantOAuthError(t, r2.StatusCode, out, http.StatusBadRequest, "invalid_redirect_uri")
}

func TestAuthWrongResource(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, v, resp, body := e.authorizeWith(e.browser(), "resource", "https://other.example/mcp")
	if loc := redirectQuery(t, resp, body); loc.Get("error") != "invalid_target" {
		t.Fatalf("authorize with a foreign resource: %v", loc)
	}
	_, c := pkce("a")
	form := exchangeForm(id, e.codeFor(id, c), v)
	form.Set("resource", "https://other.example/mcp")
	status, out := e.token(form)
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_target")
}

func TestAuthTokenAudienceBound(t *testing.T) {
	st := newMemStore()
	e := newTestEnv(t, nil, nil)
	_, access, _ := e.tokens()
	// The same records served under another public URL: the token's
	// audience no longer matches.
	e.st.mu.Lock()
	for k, v := range e.st.data {
		st.data[k] = v
	}
	e.st.mu.Unlock()
	moved := newTestEnv(t, st, nil)
	if got := moved.call(access); got != http.StatusUnauthorized {
		t.Fatalf("token used on a server with another public URL: %d, want 401", got)
	}
}

func TestAuthExpiredAndRevokedTokens(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, access, _ := e.tokens()
	e.clock.Advance(DefaultAccessTTL + time.Second)
	if got := e.call(access); got != http.StatusUnauthorized {
		t.Fatalf("expired token: %d, want 401", got)
	}
	e.clock.Advance(-DefaultAccessTTL - time.Second)
	if got := e.call(access); got != http.StatusOK {
		t.Fatalf("token back in its lifetime: %d", got)
	}
	if n, err := Revoke(e.st, id); err != nil || n != 1 {
		t.Fatalf("Revoke = %d, %v", n, err)
	}
	if got := e.call(access); got != http.StatusUnauthorized {
		t.Fatalf("revoked token: %d, want 401", got)
	}
	if _, err := Revoke(e.st, "nope"); err == nil {
		t.Error("revoking an unknown id succeeded")
	}
}

func TestAuthRefreshReuseRevokesFamily(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, _, refresh := e.tokens()
	form := url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {refresh}}
	status, out := e.token(form)
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %v", status, out)
	}
	status, reuse := e.token(form)
	wantOAuthError(t, status, reuse, http.StatusBadRequest, "invalid_grant")
	if got := e.call(out["access_token"].(string)); got != http.StatusUnauthorized {
		t.Errorf("access token of a reused family: %d, want 401", got)
	}
	status, next := e.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {out["refresh_token"].(string)}})
	wantOAuthError(t, status, next, http.StatusBadRequest, "invalid_grant")
}

func TestAuthConsentCSRF(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	b, f := e.newConsent()
	// Another browser (no cookie) posting the victim's form fields.
	if resp, _ := e.consent(e.browser(), f, "approve", testPass); resp.StatusCode != http.StatusForbidden {
		t.Errorf("consent without the cookie: %s, want 403", resp.Status)
	}
	forged := f
	forged.csrf = "forged"
	if resp, _ := e.consent(b, forged, "approve", testPass); resp.StatusCode != http.StatusForbidden {
		t.Errorf("consent with a forged csrf token: %s, want 403", resp.Status)
	}
	if resp, _ := e.consent(b, f, "approve", ""); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Location") != "" {
		t.Errorf("consent without passphrase: %s, want 403 and no redirect", resp.Status)
	}
	if resp, _ := e.consent(b, f, "continue", ""); resp.StatusCode != http.StatusOK || resp.Header.Get("Location") != "" {
		t.Errorf("continue before approval: %s", resp.Status)
	}
	// Approval by command, then continue.
	if name, err := Approve(e.st, strings.ToLower(f.approveCode), e.clock.Now()); err != nil || name != "Test Client" {
		t.Fatalf("Approve(%q) = %q, %v", f.approveCode, name, err)
	}
	resp, body := e.consent(b, f, "continue", "")
	if loc := redirectQuery(t, resp, body); loc.Get("code") == "" {
		t.Fatalf("continue after approval: %v", loc)
	}
	if resp, _ := e.consent(b, f, "continue", ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a consent used twice: %s, want 403", resp.Status)
	}
}

func TestAuthPassphraseRateLimited(t *testing.T) {
	e := newTestEnv(t, nil, func(c *Config) { c.MaxFailures, c.FailureWindow = 3, time.Minute })
	b, f := e.newConsent()
	for range 3 {
		if resp, _ := e.consent(b, f, "approve", "wrong passphrase!"); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("wrong passphrase: %s", resp.Status)
		}
	}
	if resp, _ := e.consent(b, f, "approve", testPass); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right passphrase while locked out: %s, want 429", resp.Status)
	}
	e.clock.Advance(2 * time.Minute)
	if resp, body := e.consent(b, f, "approve", testPass); resp.StatusCode != http.StatusFound {
		t.Fatalf("after the window: %s\n%s", resp.Status, body)
	}
}

func TestAuthRegistrationAndConsentFloods(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, access, _ := e.tokens()
	for range maxClients + 5 {
		e.register()
	}
	l, err := List(e.st)
	if err != nil || len(l.Clients) > maxClients {
		t.Fatalf("List after a registration flood: %d clients, %v", len(l.Clients), err)
	}
	if !slices.ContainsFunc(l.Clients, func(c Client) bool { return c.ID == id }) || e.call(access) != http.StatusOK {
		t.Fatal("a flood of registrations evicted the client holding a grant")
	}
	// One client's requests replace each other beyond its share; none is
	// refused (a refusal would lock the owner out too).
	_, c := pkce("a")
	newest := e.register()
	for i := range maxPending + 1 {
		if resp, _ := e.authorize(e.browser(), authParams(newest, c)); resp.StatusCode != http.StatusOK {
			t.Fatalf("authorization %d: %s, want 200", i, resp.Status)
		}
	}
	n := 0
	e.st.View(func(tx Tx) error { return tx.ForEach(kindPending, func(string, []byte) error { n++; return nil }) })
	if n != maxPendingPerClient {
		t.Errorf("%d sign-ins of one client wait, want %d", n, maxPendingPerClient)
	}
}

func TestAuthExpiredCodeDenyAndUnknownClient(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, v, code := e.newCode()
	_, c := pkce("a")
	e.clock.Advance(DefaultCodeTTL + time.Second)
	status, out := e.token(exchangeForm(id, code, v))
	wantOAuthError(t, status, out, http.StatusBadRequest, "invalid_grant")

	b := e.browser()
	_, page := e.authorize(b, authParams(id, c))
	resp, body := e.consent(b, parseConsent(t, page), "deny", "")
	if loc := redirectQuery(t, resp, body); loc.Get("error") != "access_denied" || loc.Get("code") != "" || loc.Get("iss") != e.ts.URL {
		t.Fatalf("deny: %v", loc)
	}
	resp, _ = e.authorize(e.browser(), authParams("mcpvec-client-unknown", c))
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
		t.Fatalf("unknown client: %s Location=%q", resp.Status, resp.Header.Get("Location"))
	}
	status, out = e.token(url.Values{"grant_type": {"password"}, "client_id": {id}})
	wantOAuthError(t, status, out, http.StatusBadRequest, "unsupported_grant_type")
}

func TestAuthResourceTrailingSlash(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	b := e.browser()
	id, v, _, page := e.authorizeWith(b, "resource", e.ts.URL+"/mcp/")
	resp, body := e.consent(b, parseConsent(t, page), "approve", testPass)
	form := exchangeForm(id, redirectQuery(t, resp, body).Get("code"), v)
	form.Set("resource", e.ts.URL+"/mcp/")
	if status, out := e.token(form); status != http.StatusOK || e.call(out["access_token"].(string)) != http.StatusOK {
		t.Fatalf("resource with a trailing slash: %d %v", status, out)
	}
}

// TestAuthConcurrentRedemption: of many simultaneous redemptions of one code
// or one refresh token, exactly one gets tokens.
func TestAuthConcurrentRedemption(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	id, v, code := e.newCode()
	_, _, refresh := e.tokens()
	refreshClient := e.st.firstGrantClient(t)
	for name, form := range map[string]url.Values{
		"code":    exchangeForm(id, code, v),
		"refresh": {"grant_type": {"refresh_token"}, "client_id": {refreshClient}, "refresh_token": {refresh}},
	} {
		var wg sync.WaitGroup
		var ok atomic.Int32
		for range 8 {
			wg.Go(func() {
				resp, err := http.PostForm(e.url(pathToken), form)
				if err == nil {
					if resp.StatusCode == http.StatusOK {
						ok.Add(1)
					}
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
		if n := ok.Load(); n != 1 {
			t.Errorf("%s redeemed %d times at once, want exactly 1", name, n)
		}
	}
}

// firstGrantClient returns the client id of the only grant.
func (s *memStore) firstGrantClient(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.data[kindGrant] {
		var g Grant
		json.Unmarshal(b, &g)
		return g.ClientID
	}
	t.Fatal("no grant")
	return ""
}
