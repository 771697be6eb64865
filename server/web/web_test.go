package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/web"
)

func newClient(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf field in page")
	}
	return m[1]
}

func TestSecurityHeaders(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	resp, body := get(t, newClient(t), f.URL+"/")
	if resp.StatusCode != 200 || !strings.Contains(body, "Are Cats Attached") {
		t.Fatalf("GET / = %d, want the library listing cats.pdf", resp.StatusCode)
	}
	for k, want := range map[string]string{"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP = %q", csp)
	}
	c := resp.Cookies()
	if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("cookies %+v, want one HttpOnly SameSite=Strict session cookie", c)
	}
}

func TestCSRFRefused(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	_, body := get(t, c, f.URL+"/")
	id := f.docID(t, "otters.txt")
	if resp, _ := post(t, c, f.URL+"/ui/delete", url.Values{"id": {id}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST without csrf = %d, want 403", resp.StatusCode)
	}
	if resp, _ := post(t, c, f.URL+"/ui/delete", url.Values{"id": {id}, "csrf": {"wrong"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST with a wrong csrf = %d, want 403", resp.StatusCode)
	}
	resp, _ := post(t, c, f.URL+"/ui/delete", url.Values{"id": {id}, "csrf": {csrfOf(t, body)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST with csrf = %d, want 303", resp.StatusCode)
	}
	if _, body = get(t, c, f.URL+"/"); strings.Contains(body, "otters.txt") {
		t.Errorf("otters.txt still listed after delete")
	}
}

func (f *fixture) docID(t *testing.T, title string) string {
	docs, err := f.Live.Current().Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Title == title {
			return d.ID
		}
	}
	t.Fatalf("no document %q", title)
	return ""
}

func TestSignInRequiredWhenExposed(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	c := newClient(t)
	for _, p := range []string{"/", "/ui/search?q=cat", "/ui/connect", "/ui/activity"} {
		if resp, _ := get(t, c, f.URL+p); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/signin" {
			t.Errorf("GET %s = %d → %q, want a redirect to /ui/signin", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	_, page := get(t, c, f.URL+"/ui/signin")
	if strings.Contains(page, testToken) {
		t.Fatal("sign-in page shows the token")
	}
	csrf := csrfOf(t, page)
	if resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {"nope"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token = %d, want 403", resp.StatusCode)
	}
	resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {testToken}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("right token = %d, want 303", resp.StatusCode)
	}
	if resp, body := get(t, c, f.URL+"/"); resp.StatusCode != 200 || !strings.Contains(body, "Are Cats Attached") {
		t.Fatalf("GET / after sign-in = %d", resp.StatusCode)
	}
}

func TestSignInRateLimited(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	c := newClient(t)
	_, page := get(t, c, f.URL+"/ui/signin")
	csrf := csrfOf(t, page)
	var last int
	for range 6 {
		resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {"wrong"}})
		last = resp.StatusCode
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("6th wrong attempt = %d, want 429", last)
	}
	// The limiter of wrong guesses never refuses the right credential.
	if resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {testToken}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("right token while limited = %d, want 303", resp.StatusCode)
	}
}

func TestConnectionTestAndActivity(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	c := newClient(t)
	_, page := get(t, c, f.URL+"/ui/signin")
	post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrfOf(t, page)}, "secret": {testToken}})
	_, page = get(t, c, f.URL+"/ui/connect")
	resp, body := post(t, c, f.URL+"/ui/connect/test", url.Values{"csrf": {csrfOf(t, page)}, "q": {"cats home"}})
	if resp.StatusCode != 200 || !strings.Contains(body, "Connection works") || !strings.Contains(body, "tools: fetch, search") {
		t.Fatalf("connection test = %d:\n%s", resp.StatusCode, body)
	}
	calls := f.Act.Recent()
	if len(calls) != 1 || calls[0].Tool != "search" || calls[0].Query != "cats home" || calls[0].Client != "mcpvec-web-test" || calls[0].Results == 0 {
		t.Fatalf("activity %+v, want the test's search", calls)
	}
	if _, body := get(t, c, f.URL+"/ui/activity"); !strings.Contains(body, "mcpvec-web-test") {
		t.Errorf("activity page does not show the call")
	}
}

func TestActivityRingIsBounded(t *testing.T) {
	a := web.NewActivity(3)
	for i := range 5 {
		a.Record(server.Call{Query: string(rune('a' + i))})
	}
	got := a.Recent()
	if len(got) != 3 || got[0].Query != "e" || got[2].Query != "c" {
		t.Fatalf("Recent = %+v, want e, d, c", got)
	}
}

// TestResyncRememberedRoot re-syncs a remembered folder from the add page;
// a folder that is not remembered, or a form without its CSRF token, is
// refused.
func TestResyncRememberedRoot(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	root := filepath.Join(f.Dir, "synced")
	os.MkdirAll(root, 0o700)
	os.WriteFile(filepath.Join(root, "puffins.txt"), []byte("Puffins carry a dozen sand eels crosswise in their beaks.\n"), 0o600)
	_, body := get(t, c, f.URL+"/ui/add")
	if !strings.Contains(body, root) || !strings.Contains(body, "Re-sync") {
		t.Fatalf("the add page does not offer to re-sync %s", root)
	}
	csrf := csrfOf(t, body)
	if resp, _ := post(t, c, f.URL+"/ui/resync", url.Values{"root": {root}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("re-sync without csrf = %d, want 403", resp.StatusCode)
	}
	if resp, _ := post(t, c, f.URL+"/ui/resync", url.Values{"root": {"/etc"}, "csrf": {csrf}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("re-sync of a folder that is not remembered = %d, want 404", resp.StatusCode)
	}
	resp, body := post(t, c, f.URL+"/ui/resync", url.Values{"root": {root}, "csrf": {csrf}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "ingested 1 document ") {
		t.Fatalf("re-sync = %d:\n%s", resp.StatusCode, body)
	}
	res, err := f.Live.Current().Search(context.Background(), "puffins sand eels", library.SearchOptions{K: 1})
	if err != nil || len(res.Results) == 0 || !strings.Contains(res.Results[0].Title, "puffins") {
		t.Fatalf("the re-synced file is not searchable: %+v, %v", res, err)
	}
}

// TestLibraryPages: the library page lists one page of documents at a time
// (a million-passage library listed whole was a 246 MB page), with links to
// the pages around it that keep the filter and order; a page past the end
// shows the last one, and a filter that leaves one page drops the pager.
func TestLibraryPages(t *testing.T) {
	defer web.SetLibraryPageSize(1)()
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	docLink := regexp.MustCompile(`href="/ui/doc/([0-9a-f]+)"`)
	rowsOf := func(body string) []string {
		var ids []string
		for _, m := range docLink.FindAllStringSubmatch(body, -1) {
			ids = append(ids, m[1])
		}
		return ids
	}
	_, p1 := get(t, c, f.URL+"/?sort=title&dir=asc")
	_, p2 := get(t, c, f.URL+"/?sort=title&dir=asc&page=2")
	_, past := get(t, c, f.URL+"/?sort=title&dir=asc&page=9")
	r1, r2 := rowsOf(p1), rowsOf(p2)
	if len(r1) != 1 || len(r2) != 1 || r1[0] == r2[0] {
		t.Fatalf("pages of one row: page 1 %v, page 2 %v; want one different document each", r1, r2)
	}
	for _, want := range []string{"Showing 1–1 of 2 (page 1 of 2).", `href="/?dir=asc&amp;page=2&amp;sort=title" rel="next"`} {
		if !strings.Contains(p1, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, p1)
		}
	}
	if strings.Contains(p1, `rel="prev"`) || !strings.Contains(p2, `href="/?dir=asc&amp;page=1&amp;sort=title" rel="prev"`) || strings.Contains(p2, `rel="next"`) {
		t.Errorf("page 2's links: want only a previous page:\n%s", p2)
	}
	if r := rowsOf(past); len(r) != 1 || r[0] != r2[0] || !strings.Contains(past, "Showing 2–2 of 2 (page 2 of 2).") {
		t.Errorf("page 9 of 2 shows %v, want the last page (%v)", r, r2)
	}
	_, one := get(t, c, f.URL+"/?q=otters")
	if r := rowsOf(one); len(r) != 1 || strings.Contains(one, `class="pager"`) || !strings.Contains(one, "Showing 1 of 2.") {
		t.Errorf("a filter matching one document: rows %v, want one and no pager:\n%s", r, one)
	}
}
