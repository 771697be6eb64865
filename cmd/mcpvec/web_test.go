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
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", c.csrf)
	fw, _ := mw.CreateFormFile("files", "kingfishers.txt")
	io.WriteString(fw, "Kingfishers dive from a perch to catch small fish.\n")
	mw.Close()
	if code, _, body := c.post("/ui/upload", mw.FormDataContentType(), &buf); code != 200 || !strings.Contains(body, "ingested 1 document") {
		t.Fatalf("upload = %d:\n%s", code, body)
	}
	if _, _, body := c.get("/ui/search?q=kingfishers+perch"); !strings.Contains(body, "kingfishers.txt") {
		t.Fatalf("uploaded file not found by search:\n%s", body)
	}
}
