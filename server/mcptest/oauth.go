package mcptest

import (
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
	const redirect = "http://127.0.0.1:9/cb"
	var reg map[string]any
	postJSON(tb, base+"/oauth/register", map[string]any{"client_name": "e2e", "redirect_uris": []string{redirect}}, &reg)
	clientID, _ := reg["client_id"].(string)
	verifier := strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	for k, v := range extra {
		q[k] = v
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.Get(base + "/oauth/authorize?" + q.Encode())
	if err != nil {
		tb.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"action": {"approve"}, "passphrase": {pass}}
	for _, m := range consentFieldRE.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	if resp, err = browser.PostForm(base+"/oauth/consent", form); err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		tb.Fatalf("consent: %s Location=%q", resp.Status, resp.Header.Get("Location"))
	}
	tok := map[string]any{}
	postForm(tb, base+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {clientID}, "redirect_uri": {redirect}, "code_verifier": {verifier}}, &tok)
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
