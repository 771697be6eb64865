package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// Cheap Argon2id parameters: the race detector makes the real ones slow.
	argonParams = passphraseHash{Time: 1, Memory: 1 << 10, Threads: 1}
	m.Run()
}

// memStore is an in-memory Store. Update works on a copy and keeps it only
// when fn succeeds, like a transaction.
type memStore struct {
	mu   sync.Mutex
	data map[string]map[string][]byte
}

func newMemStore() *memStore { return &memStore{data: map[string]map[string][]byte{}} }

type memTx struct {
	data     map[string]map[string][]byte
	writable bool
}

func (t *memTx) Get(kind, key string) []byte {
	if v, ok := t.data[kind][key]; ok {
		return append([]byte(nil), v...)
	}
	return nil
}

func (t *memTx) Put(kind, key string, v []byte) error {
	if !t.writable {
		return fmt.Errorf("read-only")
	}
	if t.data[kind] == nil {
		t.data[kind] = map[string][]byte{}
	}
	t.data[kind][key] = append([]byte(nil), v...)
	return nil
}

func (t *memTx) Delete(kind, key string) error {
	if !t.writable {
		return fmt.Errorf("read-only")
	}
	delete(t.data[kind], key)
	return nil
}

func (t *memTx) ForEach(kind string, fn func(string, []byte) error) error {
	for _, k := range sortedKeys(t.data[kind]) {
		if err := fn(k, append([]byte(nil), t.data[kind][k]...)); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *memStore) View(fn func(Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(&memTx{data: s.data})
}

func (s *memStore) Update(fn func(Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := map[string]map[string][]byte{}
	for k, v := range s.data {
		cp[k] = maps.Clone(v)
	}
	if err := fn(&memTx{data: cp, writable: true}); err != nil {
		return err
	}
	s.data = cp
	return nil
}

// testPass is the owner passphrase of test servers.
const testPass = "correct horse battery staple"

// testEnv is an oauth Server on 127.0.0.1 with a protected /mcp route.
type testEnv struct {
	t     *testing.T
	srv   *Server
	st    *memStore
	ts    *httptest.Server
	clock *fakeClock
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestEnv(t *testing.T, st *memStore, tweak func(*Config)) *testEnv {
	t.Helper()
	if st == nil {
		st = newMemStore()
		h, err := HashPassphrase(testPass)
		if err != nil {
			t.Fatal(err)
		}
		if err := SetPassphrase(st, h); err != nil {
			t.Fatal(err)
		}
	}
	e := &testEnv{t: t, st: st, clock: &fakeClock{now: time.Now()}}
	mux := http.NewServeMux()
	e.ts = httptest.NewUnstartedServer(mux)
	issuer := "http://" + e.ts.Listener.Addr().String()
	cfg := Config{Issuer: issuer, Resources: []string{issuer + "/mcp", issuer + "/sse"}, Store: st,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: e.clock.Now}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.srv = srv
	mux.Handle("/.well-known/", srv)
	mux.Handle("/oauth/", srv)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if _, err := srv.Authenticate(r); err != nil {
			srv.Challenge(w, r, err)
			return
		}
		io.WriteString(w, "library")
	})
	e.ts.Start()
	t.Cleanup(e.ts.Close)
	return e
}

func (e *testEnv) url(p string) string { return e.ts.URL + p }

// browser is an HTTP client with cookies that does not follow redirects.
func (e *testEnv) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

const testRedirect = "http://127.0.0.1:9/callback"

func (e *testEnv) register(redirects ...string) string {
	e.t.Helper()
	if len(redirects) == 0 {
		redirects = []string{testRedirect}
	}
	body, _ := json.Marshal(map[string]any{"client_name": "Test Client", "redirect_uris": redirects})
	resp, err := http.Post(e.url(pathRegister), "application/json", strings.NewReader(string(body)))
	if err != nil {
		e.t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		e.t.Fatalf("register: %s %v", resp.Status, out)
	}
	return out["client_id"].(string)
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 50)[:50]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func authParams(clientID, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {testRedirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"}}
}

var hiddenRE = regexp.MustCompile(`name="(request|csrf)" value="([^"]+)"`)

// consentForm is a consent page's hidden fields and approval code.
type consentForm struct {
	request, csrf, approveCode string
}

// authorize GETs the authorization endpoint in browser b and returns the
// response (the consent page or a redirect).
func (e *testEnv) authorize(b *http.Client, q url.Values) (*http.Response, string) {
	e.t.Helper()
	resp, err := b.Get(e.url(pathAuthorize) + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func parseConsent(t *testing.T, page string) consentForm {
	t.Helper()
	var f consentForm
	for _, m := range hiddenRE.FindAllStringSubmatch(page, -1) {
		if m[1] == "request" {
			f.request = m[2]
		} else {
			f.csrf = m[2]
		}
	}
	if m := regexp.MustCompile(`approve ([A-Z2-9]{4}-[A-Z2-9]{4})`).FindStringSubmatch(page); m != nil {
		f.approveCode = m[1]
	}
	if f.request == "" || f.csrf == "" {
		t.Fatalf("no consent form in page:\n%s", page)
	}
	return f
}

// consent posts the consent form and returns the response and body.
func (e *testEnv) consent(b *http.Client, f consentForm, action, pass string) (*http.Response, string) {
	e.t.Helper()
	form := url.Values{"request": {f.request}, "csrf": {f.csrf}, "action": {action}, "passphrase": {pass}}
	resp, err := b.PostForm(e.url(pathConsent), form)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// codeFor runs authorize and passphrase consent, returning the code.
func (e *testEnv) codeFor(clientID, challenge string) string {
	e.t.Helper()
	b := e.browser()
	resp, page := e.authorize(b, authParams(clientID, challenge))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("authorize: %s\n%s", resp.Status, page)
	}
	resp, page = e.consent(b, parseConsent(e.t, page), "approve", testPass)
	loc := redirectQuery(e.t, resp, page)
	if loc.Get("code") == "" || loc.Get("state") != "st-1" || loc.Get("iss") != e.ts.URL {
		e.t.Fatalf("redirect after consent lacks code, state or iss: %v", loc)
	}
	return loc.Get("code")
}

func redirectQuery(t *testing.T, resp *http.Response, body string) url.Values {
	t.Helper()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("want a redirect, got %s\n%s", resp.Status, body)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(u.String(), testRedirect) {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	return u.Query()
}

// token posts to the token endpoint and returns the status and JSON.
func (e *testEnv) token(form url.Values) (int, map[string]any) {
	e.t.Helper()
	resp, err := http.PostForm(e.url(pathToken), form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		e.t.Fatalf("token response: %v", err)
	}
	return resp.StatusCode, out
}

func exchangeForm(clientID, code, verifier string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {testRedirect}}
}

// newCode registers a client and runs authorize and consent for it,
// returning the client, the PKCE verifier and the code.
func (e *testEnv) newCode() (clientID, verifier, code string) {
	e.t.Helper()
	clientID = e.register()
	v, c := pkce("a")
	return clientID, v, e.codeFor(clientID, c)
}

// authorizeWith registers a client and sends it to authorize in browser b
// with the parameter key set to value; it returns the client, its PKCE
// verifier and the answer.
func (e *testEnv) authorizeWith(b *http.Client, key, value string) (clientID, verifier string, resp *http.Response, body string) {
	e.t.Helper()
	clientID = e.register()
	verifier, c := pkce("a")
	p := authParams(clientID, c)
	p.Set(key, value)
	resp, body = e.authorize(b, p)
	return clientID, verifier, resp, body
}

// newConsent registers a client and opens its consent page in a new
// browser, returning the browser and the page's form.
func (e *testEnv) newConsent() (*http.Client, consentForm) {
	e.t.Helper()
	id := e.register()
	_, c := pkce("a")
	b := e.browser()
	_, page := e.authorize(b, authParams(id, c))
	return b, parseConsent(e.t, page)
}

// tokens runs the whole flow for a new client and returns its tokens.
func (e *testEnv) tokens() (clientID, access, refresh string) {
	e.t.Helper()
	clientID, v, code := e.newCode()
	status, out := e.token(exchangeForm(clientID, code, v))
	if status != http.StatusOK {
		e.t.Fatalf("token: %d %v", status, out)
	}
	return clientID, out["access_token"].(string), out["refresh_token"].(string)
}

// call GETs /mcp with a bearer token and returns the status.
func (e *testEnv) call(token string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url("/mcp"), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// wantOAuthError checks an error answer with no token in it.
func wantOAuthError(t *testing.T, status int, out map[string]any, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus || out["error"] != wantCode || out["access_token"] != nil {
		t.Fatalf("got %d %v, want %d error=%s and no token", status, out, wantStatus, wantCode)
	}
}
