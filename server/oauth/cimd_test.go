package oauth

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// metadataServer serves a client ID metadata document over TLS on
// 127.0.0.1 with handler, returning the document URL and the trusted roots.
func metadataServer(t *testing.T, handler func(id string) http.HandlerFunc) (string, *x509.CertPool) {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewTLSServer(mux)
	t.Cleanup(ts.Close)
	id := ts.URL + "/client.json"
	mux.HandleFunc("/client.json", handler(id))
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	return id, pool
}

func goodDocument(id string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Doc Client","redirect_uris":[%q],"token_endpoint_auth_method":"none"}`, id, testRedirect)
	}
}

func TestAuthMetadataDocumentFlow(t *testing.T) {
	var fetches atomic.Int32
	id, pool := metadataServer(t, func(id string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fetches.Add(1)
			goodDocument(id)(w, r)
		}
	})
	e := newTestEnv(t, nil, func(c *Config) { c.Metadata = MetadataOptions{AllowLoopback: true, RootCAs: pool} })
	v, c := pkce("m")
	status, out := e.token(exchangeForm(id, e.codeFor(id, c), v))
	if status != http.StatusOK {
		t.Fatalf("token for a metadata-document client: %d %v", status, out)
	}
	if got := e.call(out["access_token"].(string)); got != http.StatusOK {
		t.Fatalf("call: %d", got)
	}
	l, err := List(e.st)
	if err != nil || len(l.Clients) != 1 || l.Clients[0].Name != "Doc Client" || len(l.Grants) != 1 {
		t.Fatalf("List = %+v, %v", l, err)
	}
	// A redirect URI the document does not list is refused without redirect.
	p := authParams(id, c)
	p.Set("redirect_uri", "https://evil.example/cb")
	if resp, _ := e.authorize(e.browser(), p); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("redirect not in the document: %s", resp.Status)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times for two authorizations, want once (cached)", n)
	}
}

func TestAuthMetadataDocumentRefused(t *testing.T) {
	big := func(id string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"client_id":%q,"client_name":"%s","redirect_uris":[%q]}`, id, strings.Repeat("x", 64<<10), testRedirect)
		}
	}
	// The slow server answers after 3 s whatever happens to the request.
	// When it ended its wait on r.Context() instead, two CI runs saw a fetch
	// succeed within the fetcher's 300 ms (why the request context ended
	// first is not known). The server's Close waits for it, up to 3 s.
	slow := func(id string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(3 * time.Second)
			goodDocument(id)(w, r)
		}
	}
	lying := func(string) http.HandlerFunc { return goodDocument("https://someone.else.example/client.json") }
	for _, tc := range []struct {
		name    string
		handler func(string) http.HandlerFunc
		opts    func(pool *x509.CertPool) MetadataOptions
		url     func(id string) string
		want    error
	}{
		{"http", goodDocument, func(p *x509.CertPool) MetadataOptions { return MetadataOptions{RootCAs: p} },
			func(id string) string { return "http://client.example/client.json" }, ErrMetadataURL},
		{"private", goodDocument, func(p *x509.CertPool) MetadataOptions { return MetadataOptions{RootCAs: p} },
			func(id string) string { return id }, ErrMetadataAddress},
		{"oversized", big, func(p *x509.CertPool) MetadataOptions { return MetadataOptions{AllowLoopback: true, RootCAs: p} },
			func(id string) string { return id }, ErrMetadataDocument},
		{"slow", slow, func(p *x509.CertPool) MetadataOptions {
			return MetadataOptions{AllowLoopback: true, RootCAs: p, Timeout: 300 * time.Millisecond}
		}, func(id string) string { return id }, ErrMetadataDocument},
		{"other client_id", lying, func(p *x509.CertPool) MetadataOptions { return MetadataOptions{AllowLoopback: true, RootCAs: p} },
			func(id string) string { return id }, ErrMetadataDocument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, pool := metadataServer(t, tc.handler)
			e := newTestEnv(t, nil, func(c *Config) { c.Metadata = tc.opts(pool) })
			_, err := e.srv.lookupClient(context.Background(), tc.url(id))
			if !errors.Is(err, tc.want) || !errors.Is(err, errClient) {
				t.Fatalf("lookup: %v, want %v", err, tc.want)
			}
			// And the authorization endpoint refuses it without redirecting.
			_, c := pkce("m")
			resp, _ := e.authorize(e.browser(), authParams(tc.url(id), c))
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
				t.Fatalf("authorize: %s Location=%q", resp.Status, resp.Header.Get("Location"))
			}
		})
	}
}

func TestAuthPublicAddr(t *testing.T) {
	f := newMetadataFetcher(MetadataOptions{}, time.Now)
	for addr, ok := range map[string]bool{
		"8.8.8.8:443": true, "127.0.0.1:443": false, "10.1.2.3:443": false, "192.168.1.1:443": false,
		"169.254.169.254:80": false, "100.64.0.1:443": false, "[::1]:443": false, "[fe80::1]:443": false,
		"[::ffff:127.0.0.1]:443": false, "0.0.0.0:443": false, "[fd00::1]:443": false, "[2606:4700::1]:443": true,
	} {
		if err := f.checkAddress("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("checkAddress(%s) = %v, want allowed=%v", addr, err, ok)
		}
	}
	if err := f.checkURL("https://example.com/"); err == nil {
		t.Error("a metadata URL without a path was accepted")
	}
	if _, err := url.Parse("https://example.com/c.json"); err != nil || f.checkURL("https://example.com/c.json") != nil {
		t.Error("a good metadata URL was refused")
	}
}
