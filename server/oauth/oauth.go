package oauth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// Tx is one transaction on the sign-in records, grouped by kind. Slices
// returned by Get and handed to ForEach belong to the caller. *store.AuthTx
// satisfies it.
type Tx interface {
	Get(kind, key string) []byte
	Put(kind, key string, value []byte) error
	Delete(kind, key string) error
	ForEach(kind string, fn func(key string, value []byte) error) error
}

// Store keeps the records. View runs fn read-only; Update runs fn in one
// atomic, serialised read-write transaction (committing only when fn returns
// nil). Both return fn's error unchanged. Implementations must be safe for
// concurrent use.
type Store interface {
	View(fn func(Tx) error) error
	Update(fn func(Tx) error) error
}

// Defaults applied by New to zero Config fields.
const (
	DefaultAccessTTL  = time.Hour
	DefaultRefreshTTL = 30 * 24 * time.Hour
	DefaultCodeTTL    = time.Minute
	DefaultConsentTTL = 10 * time.Minute
	// Scope is the one scope there is: reading the library.
	Scope = "library:read"
)

// Errors returned by New; callers branch on them with errors.Is.
var (
	// ErrConfig means a Config field is missing or malformed.
	ErrConfig = errors.New("invalid oauth config")
	// ErrNoToken means a request carried no bearer token.
	ErrNoToken = errors.New("no bearer token")
	// ErrInvalidToken means a bearer token is unknown, expired, revoked or
	// bound to another resource.
	ErrInvalidToken = errors.New("invalid token")
)

// Config configures a Server.
type Config struct {
	// Issuer is the public https base URL (no path, no trailing slash) of
	// the server; http is accepted only for a loopback host.
	Issuer string
	// Resources are the protected resource URLs (e.g. Issuer+"/mcp",
	// Issuer+"/sse"); the first is the default audience. Tokens are bound
	// to one of them or to Issuer itself.
	Resources []string
	// Store keeps all state; required.
	Store Store
	// Logger receives logs; nil means slog.Default().
	Logger *slog.Logger
	// ApproveCommand is shown on the consent page before the approval code,
	// e.g. "mcpvec auth approve".
	ApproveCommand string
	// AccessTTL, RefreshTTL, CodeTTL and ConsentTTL bound the lifetimes of
	// access tokens, refresh tokens, codes and pending consents.
	AccessTTL, RefreshTTL, CodeTTL, ConsentTTL time.Duration
	// MaxFailures wrong passphrases within FailureWindow from one client
	// (network address and OAuth client) lock passphrase approval for it
	// until the window passes (default 5 per 15 minutes); ten times as
	// many from all clients lock it for everyone. Approval by command is
	// never locked.
	MaxFailures   int
	FailureWindow time.Duration
	// ClientAddr names the network client of a request, by which pending
	// sign-ins and wrong passphrases are counted; nil means the IP address
	// of the connection's peer. Forwarded headers are not trusted by
	// default: anyone can send them.
	ClientAddr func(*http.Request) string
	// Metadata limits fetching client ID metadata documents.
	Metadata MetadataOptions
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Upstream, when set, signs people in at an OpenID provider: the
	// authorization endpoint sends them there, and the person it names
	// consents (no owner passphrase). Register CallbackURL there.
	Upstream Upstream
	// Admit, when set, decides whether a person signed in upstream may be
	// granted a resource: asked when the provider sends them back, when a
	// code is redeemed and at every refresh. A non-nil error refuses (its
	// text is shown to the person). It must be safe for concurrent use.
	Admit func(p identity.Person, resource string) error
}

// Server is a single-owner OAuth 2.1 authorization server and the token
// check of the protected resource. It is safe for concurrent use.
type Server struct {
	cfg       Config
	log       *slog.Logger
	issuer    *url.URL
	audiences map[string]bool
	mux       *http.ServeMux
	fetcher   *metadataFetcher
	passMu    sync.Mutex // one passphrase check at a time
	mu        sync.Mutex
	failures  []failure            // recent wrong passphrases
	lastUse   map[string]time.Time // grant id → last recorded use
}

// New checks cfg and builds a Server. Errors wrap ErrConfig.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: no store", ErrConfig)
	}
	iss, err := checkIssuer(cfg.Issuer)
	if err != nil {
		return nil, err
	}
	fillDefaults(&cfg)
	s := &Server{cfg: cfg, log: cfg.Logger, issuer: iss, lastUse: make(map[string]time.Time)}
	s.cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	s.audiences = map[string]bool{s.cfg.Issuer: true, s.cfg.Issuer + "/": true}
	for _, r := range cfg.Resources {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != iss.Scheme || u.Host != iss.Host || u.Fragment != "" {
			return nil, fmt.Errorf("%w: resource %q is not on the issuer %s", ErrConfig, r, s.cfg.Issuer)
		}
		s.audiences[r] = true
	}
	if len(s.cfg.Resources) == 0 {
		s.cfg.Resources = []string{s.cfg.Issuer}
	}
	s.fetcher = newMetadataFetcher(cfg.Metadata, s.cfg.Now)
	s.routes()
	return s, nil
}

func checkIssuer(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: issuer %q must be a base URL like https://host", ErrConfig, raw)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback.Host(u.Hostname())) {
		return nil, fmt.Errorf("%w: issuer %q must be https (http only for a loopback address)", ErrConfig, raw)
	}
	return u, nil
}

func fillDefaults(c *Config) {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ClientAddr == nil {
		c.ClientAddr = peerAddr
	}
	setDur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	setDur(&c.AccessTTL, DefaultAccessTTL)
	setDur(&c.RefreshTTL, DefaultRefreshTTL)
	setDur(&c.CodeTTL, DefaultCodeTTL)
	setDur(&c.ConsentTTL, DefaultConsentTTL)
	setDur(&c.FailureWindow, 15*time.Minute)
	if c.MaxFailures <= 0 {
		c.MaxFailures = 5
	}
	if c.ApproveCommand == "" {
		c.ApproveCommand = "mcpvec auth approve"
	}
}

// Paths of the endpoints, relative to the issuer.
const (
	pathPRM       = "/.well-known/oauth-protected-resource"
	pathASMeta    = "/.well-known/oauth-authorization-server"
	pathOIDCMeta  = "/.well-known/openid-configuration"
	pathRegister  = "/oauth/register"
	pathAuthorize = "/oauth/authorize"
	pathConsent   = "/oauth/consent"
	pathToken     = "/oauth/token"
	pathRevoke    = "/oauth/revoke"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET "+pathPRM, s.serveResourceMetadata)
	m.HandleFunc("GET "+pathPRM+"/", s.serveResourceMetadata)
	m.HandleFunc("GET "+pathASMeta, s.serveServerMetadata)
	m.HandleFunc("GET "+pathOIDCMeta, s.serveServerMetadata)
	m.HandleFunc("POST "+pathRegister, s.serveRegister)
	m.HandleFunc(pathAuthorize, s.serveAuthorize)
	m.HandleFunc(pathConsent, s.serveConsent)
	m.HandleFunc("GET "+pathCallback, s.serveCallback)
	m.HandleFunc("POST "+pathToken, s.serveToken)
	m.HandleFunc("POST "+pathRevoke, s.serveRevoke)
	s.mux = m
}

// ServeHTTP serves the discovery documents under /.well-known/ and the
// endpoints under /oauth/. Mount it for both prefixes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) now() time.Time { return s.cfg.Now() }
