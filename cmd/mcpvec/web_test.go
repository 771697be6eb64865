package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// webClient keeps the session cookie by hand: it is Secure behind the
// https tunnel, which a cookie jar would not send over the test's http.
type webClient struct {
	t      *testing.T
	base   string
	cookie string
	csrf   string
}

var webCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (c *webClient) do(req *http.Request) (int, string, string) {
	c.t.Helper()
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "mcpvec_session" {
			c.cookie = ck.Name + "=" + ck.Value
		}
	}
	b, _ := io.ReadAll(resp.Body)
	if m := webCSRF.FindSubmatch(b); m != nil {
		c.csrf = string(m[1])
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func (c *webClient) get(path string) (int, string, string) {
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	return c.do(req)
}

func (c *webClient) post(path, ctype string, body io.Reader) (int, string, string) {
	req, _ := http.NewRequest(http.MethodPost, c.base+path, body)
	req.Header.Set("Content-Type", ctype)
	return c.do(req)
}

// TestServeWebSignInAndUpload runs `serve --oauth` behind a tunnel: the web
// page asks for the owner passphrase (checked by the OAuth server), then an
// upload goes through the ingest command into the served library and is
// searchable at once.
func TestServeWebSignInAndUpload(t *testing.T) {
	t.Parallel()
	db := oauthLibrary(t)
	c := &webClient{t: t, base: tunnel(t, serveOAuth(t, db, nil))}
	if code, loc, _ := c.get("/"); code != http.StatusSeeOther || loc != "/ui/signin" {
		t.Fatalf("GET / through the tunnel = %d → %q, want the sign-in page", code, loc)
	}
	c.get("/ui/signin")
	form := url.Values{"csrf": {c.csrf}, "secret": {authTestPass}}
	if code, loc, body := c.post("/ui/signin", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); code != http.StatusSeeOther || loc != "/" {
		t.Fatalf("sign in with the owner passphrase = %d → %q: %s", code, loc, body)
	}
	if code, _, body := c.get("/"); code != 200 || !strings.Contains(body, "ops.txt") {
		t.Fatalf("library after sign-in = %d", code)
	}
	kingfishers := "Kingfishers dive from a perch to catch small fish.\n"
	if code, body := c.upload(map[string]string{"kingfishers.txt": kingfishers}); code != 200 || !strings.Contains(body, "1 file: 1 added.") {
		t.Fatalf("upload = %d:\n%s", code, body)
	}
	// Again, with a file that cannot be read: the result says which did what.
	code, body := c.upload(map[string]string{"kingfishers.txt": kingfishers, "broken.pdf": "not a PDF at all"})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "2 files: 1 unchanged, 1 failed.") ||
		!regexp.MustCompile(`broken\.pdf</td><td><span class="status st-failed">failed</span><span class="reason"> · [^<]+</span>`).MatchString(body) ||
		!regexp.MustCompile(`kingfishers\.txt</td><td><span class="status st-unchanged">unchanged</span></td>\s*<td><a href="/ui/doc/[0-9a-f]{16}">`).MatchString(body) {
		t.Fatalf("second upload = %d:\n%s", code, body)
	}
	if _, _, body := c.get("/ui/search?q=kingfishers+perch"); !strings.Contains(body, "kingfishers.txt") {
		t.Fatalf("uploaded file not found by search:\n%s", body)
	}
}

// upload posts files (name → content) to the upload form and returns the
// status and page.
func (c *webClient) upload(files map[string]string) (int, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", c.csrf)
	for name, data := range files {
		fw, _ := mw.CreateFormFile("files", name)
		io.WriteString(fw, data)
	}
	mw.Close()
	code, _, body := c.post("/ui/upload", mw.FormDataContentType(), &buf)
	return code, body
}
