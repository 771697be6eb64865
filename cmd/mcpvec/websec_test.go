package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// uploadForm is a multipart body as the add page's form sends it.
func uploadForm(csrf string, files ...[2]string) (string, *bytes.Buffer) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", csrf)
	for _, f := range files {
		fw, _ := mw.CreateFormFile("files", f[0])
		io.WriteString(fw, f[1])
	}
	mw.Close()
	return mw.FormDataContentType(), &buf
}

// TestServeWebBehindToken: `serve --token` on loopback answered 401 on
// /mcp yet left the web page open to anyone reaching the port (issue 35,
// finding 2); and a second upload of a name replaced the first document
// (finding 12). The page now asks for the token, and uploads keep both.
func TestServeWebBehindToken(t *testing.T) {
	t.Parallel()
	_, db := tempLib(t)
	const tok = "websec-test-token-0123456789abcdef"
	srv := serveProc(t, db, nil, "--token", tok)
	c := &webClient{t: t, base: strings.TrimSuffix(srv.url, "/mcp")}
	if code, loc, _ := c.get("/"); code != http.StatusSeeOther || loc != "/ui/signin" {
		t.Fatalf("GET / without the token = %d → %q, want the sign-in page", code, loc)
	}
	c.get("/ui/signin")
	ctype, body := uploadForm(c.csrf, [2]string{"terns.txt", "Arctic terns fly from pole to pole every year.\n"})
	if code, _, _ := c.post("/ui/upload", ctype, body); code != http.StatusForbidden {
		t.Fatalf("upload without the token = %d, want 403", code)
	}
	form := url.Values{"csrf": {c.csrf}, "secret": {tok}}
	if code, loc, body := c.post("/ui/signin", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); code != http.StatusSeeOther || loc != "/" {
		t.Fatalf("sign in with the token = %d → %q: %s", code, loc, body)
	}
	c.get("/ui/add")
	for i, text := range []string{"Arctic terns fly from pole to pole every year.\n", "Sooty terns stay aloft for years without landing.\n"} {
		ctype, body := uploadForm(c.csrf, [2]string{"terns.txt", text})
		code, _, page := c.post("/ui/upload", ctype, body)
		if code != 200 || !strings.Contains(page, "1 file: 1 added.") || (i == 1) != strings.Contains(page, "saved as") {
			t.Fatalf("upload %d of terns.txt = %d:\n%s", i+1, code, page)
		}
	}
	entries, _ := os.ReadDir(filepath.Clean(db) + ".uploads")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, "terns.txt") || !slices.Contains(names, "terns (2).txt") {
		t.Errorf("uploads folder holds %q, want terns.txt and terns (2).txt", names)
	}
	for _, q := range []string{"arctic+pole", "sooty+aloft"} {
		if _, _, page := c.get("/ui/search?q=" + q); !strings.Contains(page, "terns") {
			t.Errorf("search %s finds no terns file", q)
		}
	}
}
