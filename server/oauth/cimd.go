package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// MetadataOptions limit how client ID metadata documents are fetched. The
// zero value is the production setting.
type MetadataOptions struct {
	// Timeout bounds one fetch, connection included (default 5 s).
	Timeout time.Duration
	// MaxBytes caps a document (default 16 KiB).
	MaxBytes int64
	// CacheFor is how long a fetched document is reused (default 10 min).
	CacheFor time.Duration
	// AllowLoopback admits documents on loopback addresses, over http too.
	// Only for tests: it lets a client on the server's machine name itself.
	AllowLoopback bool
	// RootCAs are the trusted roots; nil means the system's.
	RootCAs *x509.CertPool
}

// Errors for metadata documents, wrapped by lookups of such clients.
var (
	// ErrMetadataURL means the client_id is not an acceptable https URL.
	ErrMetadataURL = errors.New("client metadata document url not allowed")
	// ErrMetadataAddress means the URL's host resolves to a private,
	// loopback or otherwise internal address.
	ErrMetadataAddress = errors.New("client metadata document host is not a public address")
	// ErrMetadataDocument means the document could not be fetched in time,
	// is too large or is invalid.
	ErrMetadataDocument = errors.New("bad client metadata document")
)

type cachedClient struct {
	c  *Client
	at time.Time
}

// metadataFetcher fetches and caches documents; safe for concurrent use.
type metadataFetcher struct {
	opts   MetadataOptions
	now    func() time.Time
	client *http.Client
	mu     sync.Mutex
	cache  map[string]cachedClient
}

func newMetadataFetcher(o MetadataOptions, now func() time.Time) *metadataFetcher {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 16 << 10
	}
	if o.CacheFor <= 0 {
		o.CacheFor = 10 * time.Minute
	}
	f := &metadataFetcher{opts: o, now: now, cache: make(map[string]cachedClient)}
	dialer := &net.Dialer{Timeout: o.Timeout, Control: f.checkAddress}
	f.client = &http.Client{
		Timeout: o.Timeout,
		Transport: &http.Transport{
			Proxy:                  nil, // a proxy would dial for us, past checkAddress
			DialContext:            dialer.DialContext,
			TLSClientConfig:        &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    o.Timeout,
			ResponseHeaderTimeout:  o.Timeout,
			MaxResponseHeaderBytes: 16 << 10,
			DisableKeepAlives:      true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

// checkAddress runs on every connection the fetcher makes, after name
// resolution, so a DNS name pointing inside cannot slip through.
func (f *metadataFetcher) checkAddress(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrMetadataAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrMetadataAddress, address)
	}
	ip = ip.Unmap()
	if f.opts.AllowLoopback && ip.IsLoopback() {
		return nil
	}
	if !publicAddr(ip) {
		return fmt.Errorf("%w: %s", ErrMetadataAddress, ip)
	}
	return nil
}

var sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT

func publicAddr(ip netip.Addr) bool {
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !sharedSpace.Contains(ip) &&
		!ip.IsLoopback() && !ip.IsLinkLocalUnicast()
}

// checkURL accepts https URLs with a path, no credentials or fragment (and,
// with AllowLoopback, http ones on a loopback host).
func (f *metadataFetcher) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.Path == "" || u.Path == "/" || len(raw) > maxURILen {
		return fmt.Errorf("%w: %q must be an https URL with a path", ErrMetadataURL, raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && f.opts.AllowLoopback && loopback.Host(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("%w: %q is not https", ErrMetadataURL, raw)
}

// fetch returns the client a metadata document describes. Errors wrap
// ErrMetadataURL, ErrMetadataAddress or ErrMetadataDocument.
func (f *metadataFetcher) fetch(ctx context.Context, id string) (*Client, error) {
	if err := f.checkURL(id); err != nil {
		return nil, err
	}
	f.mu.Lock()
	hit, ok := f.cache[id]
	f.mu.Unlock()
	if ok && f.now().Sub(hit.at) < f.opts.CacheFor {
		return hit.c, nil
	}
	c, err := f.get(ctx, id)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if len(f.cache) > 100 {
		clear(f.cache)
	}
	f.cache[id] = cachedClient{c: c, at: f.now()}
	f.mu.Unlock()
	return c, nil
}

func (f *metadataFetcher) get(ctx context.Context, id string) (*Client, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetadataURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrMetadataAddress) {
			return nil, fmt.Errorf("fetch %s: %w", id, ErrMetadataAddress)
		}
		return nil, fmt.Errorf("%w: fetch %s: %w", ErrMetadataDocument, id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: fetch %s: status %s", ErrMetadataDocument, id, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrMetadataDocument, id, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrMetadataDocument, id, f.opts.MaxBytes)
	}
	return parseMetadataDocument(id, body, f.now())
}

func parseMetadataDocument(id string, body []byte, now time.Time) (*Client, error) {
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		AppType      string   `json:"application_type"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMetadataDocument, id, err)
	}
	if doc.ClientID != id {
		return nil, fmt.Errorf("%w: %s names client_id %q", ErrMetadataDocument, id, doc.ClientID)
	}
	if doc.AuthMethod != "" && doc.AuthMethod != "none" {
		return nil, fmt.Errorf("%w: %s: token_endpoint_auth_method %q is not supported (only none)", ErrMetadataDocument, id, doc.AuthMethod)
	}
	reg := registration{RedirectURIs: doc.RedirectURIs, ClientName: doc.ClientName, ApplicationType: doc.AppType}
	if code, msg := checkRegistration(&reg); code != "" {
		return nil, fmt.Errorf("%w: %s: %s", ErrMetadataDocument, id, msg)
	}
	name := reg.ClientName
	if name == "" {
		name = strings.TrimPrefix(id, "https://")
	}
	return &Client{ID: id, Name: name, RedirectURIs: reg.RedirectURIs, ApplicationType: reg.ApplicationType,
		Document: true, Created: now.UTC()}, nil
}
