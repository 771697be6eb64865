package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/web"
)

// Tests for issue 35: the web page's own auth and exhaustion before
// sign-in.

// clientFrom is newClient for connections from the loopback address ip
// (127.0.0.2: another client than the tests' 127.0.0.1).
func clientFrom(t *testing.T, ip string) *http.Client {
	c := newClient(t)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	c.Transport = tr
	return c
}

// TestTokenGuardsLoopbackPage: with --token on loopback /mcp answered 401
// while the web page let anyone list, read, delete and upload (finding 2).
func TestTokenGuardsLoopbackPage(t *testing.T) {
	f := mustServe(t, fixtureOptions{Token: true})
	c := newClient(t)
	id := f.docID(t, "otters.txt")
	for _, p := range []string{"/", "/ui/doc/" + id, "/ui/search?q=otters", "/ui/add", "/ui/connect", "/ui/activity"} {
		if resp, _ := get(t, c, f.URL+p); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/signin" {
			t.Errorf("GET %s without the token = %d → %q, want a redirect to /ui/signin", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	_, page := get(t, c, f.URL+"/ui/signin")
	csrf := csrfOf(t, page)
	for _, p := range []string{"/ui/delete", "/ui/connect/test", "/ui/resync"} {
		if resp, _ := post(t, c, f.URL+p, url.Values{"csrf": {csrf}, "id": {id}, "q": {"x"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without the token = %d, want 403", p, resp.StatusCode)
		}
	}
	if resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {testToken}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in with the token = %d, want 303", resp.StatusCode)
	}
	if resp, body := get(t, c, f.URL+"/"); resp.StatusCode != 200 || !strings.Contains(body, "otters.txt") {
		t.Fatalf("GET / after sign-in = %d", resp.StatusCode)
	}
}

// openFDs counts this process's open descriptors (client and server ends
// of the test's connections alike).
func openFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(es)
}

// TestSlowBodiesBeforeSignIn: sign-in and upload bodies had no deadline
// and no limit per client (21,000 slow bodies took every descriptor;
// finding 3). One client's slow bodies are now capped, the rest refused
// unread and their connections closed, and an MCP client from another
// address is served meanwhile.
func TestSlowBodiesBeforeSignIn(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	const n = 200
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 5 * time.Second}
	before := openFDs(t)
	for i := range n {
		conn, err := d.Dial("tcp", strings.TrimPrefix(f.URL, "http://"))
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer conn.Close()
		path := []string{"/ui/signin", "/ui/upload"}[i%2]
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ns", path)
	}
	// Meanwhile a real MCP client (127.0.0.1) is answered.
	req, _ := http.NewRequest("POST", f.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("MCP initialize during the slow bodies: %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	time.Sleep(2 * time.Second)
	held := openFDs(t) - before - n // the server's ends still open
	t.Logf("%d slow anonymous bodies from one client: the server holds %d descriptors for them after 2 s", n, held)
	if held > 40 {
		t.Errorf("the server holds %d descriptors for %d slow bodies of one client, want at most about 32", held, n)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// zeros is an endless reader of zeros.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// sendUpload posts a multipart upload whose first part is csrf and whose
// file part is size bytes, streamed; it returns the status (0 when the
// server cut the connection first) and the bytes the client sent.
func sendUpload(t *testing.T, c *http.Client, u, csrf, name string, size int64) (int, int64) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("csrf", csrf)
		fw, err := mw.CreateFormFile("files", name)
		if err == nil {
			_, err = io.Copy(fw, io.LimitReader(zeros{}, size))
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	body := &countingReader{r: pr}
	req, _ := http.NewRequest("POST", u, body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.ContentLength = -1 // chunked: the server cannot refuse it by its length
	resp, err := c.Do(req)
	pr.CloseWithError(io.ErrClosedPipe)
	if err != nil {
		return 0, body.n.Load()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, body.n.Load()
}

// filesUnder returns the bytes of the files under dir.
func filesUnder(dir string) (n int64) {
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestAnonymousUploadReadsNothing: an anonymous upload was parsed whole
// (150 MB RSS and 194 MiB of temporary files for 200 MiB) before the 403
// (finding 3). Now it is refused from its cookie, its body unread; an
// owner's upload with a wrong CSRF token is refused before any file.
func TestAnonymousUploadReadsNothing(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	c := newClient(t)
	_, page := get(t, c, f.URL+"/ui/signin")
	csrf := csrfOf(t, page)
	incoming := filepath.Join(f.Dir, "incoming")
	code, sent := sendUpload(t, c, f.URL+"/ui/upload", csrf, "big.bin", 64<<20)
	t.Logf("anonymous 64 MiB upload: status %d after %d KiB sent; %d bytes of temporary files", code, sent>>10, filesUnder(incoming))
	if code != 0 && code != http.StatusForbidden {
		t.Errorf("anonymous upload = %d, want 403 (or the connection cut)", code)
	}
	if sent > 16<<20 {
		t.Errorf("the server read %d MiB of an anonymous upload, want next to nothing", sent>>20)
	}
	if n := filesUnder(incoming); n > 0 {
		t.Errorf("%d bytes of temporary files for an anonymous upload, want none", n)
	}
	post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {testToken}})
	code, sent = sendUpload(t, c, f.URL+"/ui/upload", "wrong", "big.bin", 64<<20)
	t.Logf("owner's 64 MiB upload with a wrong CSRF token: status %d after %d KiB sent", code, sent>>10)
	if code != 0 && code != http.StatusForbidden || sent > 16<<20 || filesUnder(incoming) > 0 {
		t.Errorf("upload with a wrong csrf: %d after %d MiB, %d bytes of files; want 403 before the file", code, sent>>20, filesUnder(incoming))
	}
}

// upload posts files (name → content, in order) as the page's form does.
func upload(t *testing.T, c *http.Client, base, csrf string, files ...[2]string) (*http.Response, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", csrf)
	for _, f := range files {
		fw, _ := mw.CreateFormFile("files", f[0])
		io.WriteString(fw, f[1])
	}
	mw.Close()
	resp, err := c.Post(base+"/ui/upload", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestUploadKeepsSameNamedFiles: a second upload of a name replaced the
// first document, and two files of one name in one upload kept only the
// last (finding 12). Both are kept now, the later as "name (2).ext"; the
// same bytes again are the same document.
func TestUploadKeepsSameNamedFiles(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	_, page := get(t, c, f.URL+"/ui/add")
	csrf := csrfOf(t, page)
	a := "Walruses haul out on sea ice in the thousands.\n"
	b := "Narwhal tusks are teeth that grow in a spiral.\n"
	resp, body := upload(t, c, f.URL, csrf, [2]string{"notes.txt", a}, [2]string{"notes.txt", b})
	if resp.StatusCode != 200 || !strings.Contains(body, `notes.txt saved as &#34;notes (2).txt&#34;`) {
		t.Fatalf("two same-named files: %d\n%s", resp.StatusCode, body)
	}
	upload(t, c, f.URL, csrf, [2]string{"notes.txt", a}) // the same file again
	resp, body = upload(t, c, f.URL, csrf, [2]string{"notes.txt", "Beluga whales can turn their heads.\n"})
	if resp.StatusCode != 200 || !strings.Contains(body, "notes (3).txt") {
		t.Fatalf("a third notes.txt: %d\n%s", resp.StatusCode, body)
	}
	docs, err := f.Live.Current().Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, d := range docs {
		titles = append(titles, d.Title)
	}
	if got, want := len(docs), 5; got != want {
		t.Fatalf("%d documents %q, want %d (two fixtures, three notes)", got, titles, want)
	}
	for _, q := range []string{"walruses sea ice", "narwhal tusks", "beluga heads"} {
		res, err := f.Live.Current().Search(context.Background(), q, library.SearchOptions{K: 1})
		if err != nil || len(res.Results) == 0 {
			t.Errorf("%q finds nothing: %v", q, err)
		}
	}
}

// TestFloodKeepsSignInForm: a flood of cookie-less requests evicted the
// session behind an open sign-in form (finding 7). Anonymous sessions are
// kept nowhere now.
func TestFloodKeepsSignInForm(t *testing.T) {
	defer web.SetMaxSessions(100)()
	f := mustServe(t, fixtureOptions{Exposed: true})
	c := newClient(t)
	_, page := get(t, c, f.URL+"/ui/signin")
	csrf := csrfOf(t, page)
	flood := &http.Client{Timeout: 5 * time.Second}
	start := time.Now()
	var sent int
	for sent = 0; sent < 3000 && time.Since(start) < time.Minute; sent++ {
		resp, err := flood.Get(f.URL + "/ui/static/app.js")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {testToken}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in after %d cookie-less requests = %d, want 303", sent, resp.StatusCode)
	}
}

// TestWrongGuessesArePerClient: 5 wrong guesses locked the passphrase for
// everyone (finding 7). They now lock their own client only, and never
// the token.
func TestWrongGuessesArePerClient(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true, Passphrase: "correct horse battery staple"})
	guesser, owner := clientFrom(t, "127.0.0.2"), newClient(t)
	gcsrf := guessWrong(t, f, guesser, 6)
	_, page := get(t, owner, f.URL+"/ui/signin")
	if resp, _ := post(t, owner, f.URL+"/ui/signin", url.Values{"csrf": {csrfOf(t, page)}, "secret": {"correct horse battery staple"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the owner's passphrase from another address = %d, want 303", resp.StatusCode)
	}
	if resp, _ := post(t, guesser, f.URL+"/ui/signin", url.Values{"csrf": {gcsrf}, "secret": {testToken}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the token from the locked address = %d, want 303", resp.StatusCode)
	}
}

// hostRewriter sends every request with Host host, as a tunnel
// (cloudflared, ngrok) delivers its visitors' requests on loopback.
type hostRewriter struct{ host string }

func (h hostRewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = h.host
	return http.DefaultTransport.RoundTrip(r)
}

// TestTunnelGuessesLeaveTheLocalOwnerIn: behind a tunnel every stranger
// arrives from 127.0.0.1, the owner's own address, so wrong guesses through
// the tunnel locked the owner out of the web page (QA after issue 35).
// The owner at http://127.0.0.1:PORT on the machine itself is another
// client now.
func TestTunnelGuessesLeaveTheLocalOwnerIn(t *testing.T) {
	const pass = "correct horse battery staple"
	f := mustServe(t, fixtureOptions{Exposed: true, Passphrase: pass, PublicURL: "https://lib.example.com"})
	tunnel := newClient(t)
	tunnel.Transport = hostRewriter{"lib.example.com"}
	guessWrong(t, f, tunnel, 7)
	owner := newClient(t)
	_, page := get(t, owner, f.URL+"/ui/signin")
	if resp, _ := post(t, owner, f.URL+"/ui/signin", url.Values{"csrf": {csrfOf(t, page)}, "secret": {pass}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the owner's passphrase on the machine itself = %d, want 303", resp.StatusCode)
	}
}

// guessWrong signs in n times with a wrong passphrase from c, expects the
// last guess to be refused as too many, and returns c's CSRF token.
func guessWrong(t *testing.T, f *fixture, c *http.Client, n int) (csrf string) {
	t.Helper()
	_, page := get(t, c, f.URL+"/ui/signin")
	csrf = csrfOf(t, page)
	var last int
	for range n {
		resp, _ := post(t, c, f.URL+"/ui/signin", url.Values{"csrf": {csrf}, "secret": {"tr0ub4dor"}})
		last = resp.StatusCode
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("wrong guess %d = %d, want 429", n, last)
	}
	return csrf
}
