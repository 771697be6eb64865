package mcptest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

var consentFieldRE = regexp.MustCompile(`name="(request|csrf)" value="([^"]+)"`)

// OAuthLogin signs in at the authorization server at base (an mcpvec
// server with OAuth) as a new client, as a connector does: it registers,
// asks to authorize with PKCE and the extra parameters (such as an RFC
// 8707 "resource"), approves the consent page with the owner passphrase
// pass and exchanges the code. It returns the access token; any step that
// fails fails tb.
func OAuthLogin(tb testing.TB, base, pass string, extra url.Values) string {
	tb.Helper()
	c, browser := newConnector(tb, base, extra)
	resp, err := browser.Get(c.authorizeURL)
	if err != nil {
		tb.Fatal(err)
	}
	return c.consentAndRedeem(tb, browser, resp, url.Values{"action": {"approve"}, "passphrase": {pass}})
}

// OIDCLogin is OAuthLogin for a server whose people sign in at an upstream
// OpenID provider (serve --oidc-issuer): between authorize and consent,
// the browser signs in at kit as user; the consent page must name them.
func OIDCLogin(tb testing.TB, base string, kit *oidctest.Provider, user oidctest.User, extra url.Values) string {
	tb.Helper()
	c, browser := newConnector(tb, base, extra)
	resp, err := kit.SignIn(context.Background(), browser, c.authorizeURL, user.Username, user.Password)
	if err != nil {
		tb.Fatal(err)
	}
	return c.consentAndRedeem(tb, browser, resp, url.Values{"action": {"approve"}})
}

// connector is a client registered at an mcpvec server, about to sign in.
type connector struct {
	base, id, redirect, verifier, authorizeURL string
}

// newConnector registers a client at base and returns it with its
// authorization URL (PKCE S256 and extra) and a browser with cookies that
// does not follow redirects.
func newConnector(tb testing.TB, base string, extra url.Values) (*connector, *http.Client) {
	tb.Helper()
	c := &connector{base: base, redirect: "http://127.0.0.1:9/cb", verifier: strings.Repeat("v", 43)}
	var reg map[string]any
	postJSON(tb, base+"/oauth/register", map[string]any{"client_name": "e2e", "redirect_uris": []string{c.redirect}}, &reg)
	c.id, _ = reg["client_id"].(string)
	sum := sha256.Sum256([]byte(c.verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	for k, v := range extra {
		q[k] = v
	}
	c.authorizeURL = base + "/oauth/authorize?" + q.Encode()
	jar, _ := cookiejar.New(nil)
	return c, &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// consentAndRedeem posts form with the consent page resp's hidden fields,
// and exchanges the code it gets for an access token.
func (c *connector) consentAndRedeem(tb testing.TB, browser *http.Client, resp *http.Response, form url.Values) string {
	tb.Helper()
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range consentFieldRE.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	resp, err := browser.PostForm(c.base+"/oauth/consent", form)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		tb.Fatalf("consent: %s Location=%q\n%s", resp.Status, resp.Header.Get("Location"), page)
	}
	tok := map[string]any{}
	postForm(tb, c.base+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {c.id}, "redirect_uri": {c.redirect}, "code_verifier": {c.verifier}}, &tok)
	access, ok := tok["access_token"].(string)
	if !ok {
		tb.Fatalf("token: %v", tok)
	}
	return access
}

// postJSON posts body as JSON to u and decodes the answer into out.
func postJSON(tb testing.TB, u string, body, out any) {
	tb.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(u, "application/json", strings.NewReader(string(b)))
	decodeAnswer(tb, u, resp, err, out)
}

// postForm posts form to u and decodes the JSON answer into out.
func postForm(tb testing.TB, u string, form url.Values, out any) {
	tb.Helper()
	resp, err := http.PostForm(u, form)
	decodeAnswer(tb, u, resp, err, out)
}

func decodeAnswer(tb testing.TB, u string, resp *http.Response, err error, out any) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		tb.Fatalf("%s: %s: %v", u, resp.Status, err)
	}
}
