package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/internal/client"
	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// Library is the query path the server needs. *library.Library satisfies it;
// implementations must be safe for concurrent use. A response Search
// returns is the caller's (the server links its results in place).
type Library interface {
	Search(ctx context.Context, query string, opt library.SearchOptions) (*library.SearchResponse, error)
	Fetch(ctx context.Context, id string, opt library.FetchOptions) (*library.FetchResponse, error)
	Original(ctx context.Context, docID string) (*library.Original, error)
	View(ctx context.Context, docID string) (*library.View, error)
	Summary(ctx context.Context) (library.Summary, error)
}

// Defaults applied by New to zero-valued Options fields.
const (
	DefaultAddr          = "127.0.0.1:8080"
	DefaultMaxResults    = 10
	DefaultMaxFetchChars = 20000
	DefaultMaxQueryLen   = library.DefaultMaxQueryLen
	DefaultMaxBodyBytes  = 1 << 20
	// DefaultMaxSessions caps live streamable HTTP sessions (each holds
	// about 13 KB until it ends).
	DefaultMaxSessions        = 1000
	DefaultSessionIdleTimeout = 15 * time.Minute
	DefaultMaxSSEStreams      = 500
	// DefaultMaxSSEStreamsPerClient caps the legacy SSE streams one
	// client (address) may hold open.
	DefaultMaxSSEStreamsPerClient = 64
	// DefaultMaxConnsPerClient caps the connections one client may hold
	// open at once.
	DefaultMaxConnsPerClient = 1024
	// DefaultMaxBodiesPerClient caps the request bodies one client may
	// have in flight at once.
	DefaultMaxBodiesPerClient = 32
	// DefaultMaxSSEPending caps the answers a legacy SSE client may leave
	// unread before its stream is closed.
	DefaultMaxSSEPending = 32
)

// Errors returned by New; callers branch on them with errors.Is.
var (
	// ErrNeedAuth means Addr is not a loopback address and neither Token nor
	// InsecureNoAuth is set.
	ErrNeedAuth = errors.New("refusing to listen on a non-loopback address without a token (set a token or insecure-no-auth)")
	// ErrBadOption means an Options field is malformed (PublicURL, SecretPath,
	// Addr or a negative limit).
	ErrBadOption = errors.New("invalid server option")
)

// DefaultAllowedOrigins are the browser origins accepted in an Origin header
// besides loopback origins and the origin of PublicURL: the web apps of the
// MCP clients this server is built for.
var DefaultAllowedOrigins = []string{"https://chatgpt.com", "https://chat.openai.com", "https://claude.ai"}

var secretPathRE = regexp.MustCompile(`^k-[A-Za-z0-9_-]{32,}$`)

// Options configures a Server. The zero value is usable (loopback, no token).
type Options struct {
	// Addr is the listen address; "" means DefaultAddr.
	Addr string
	// PublicURL is the https base a tunnel exposes (e.g.
	// "https://x.trycloudflare.com"). Its host is accepted in Host headers and
	// it is the base of document links.
	PublicURL string
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every route except signed /docs links.
	Token string
	// SecretPath is "" or "k-" followed by at least 32 URL-safe characters;
	// the MCP endpoints are then served only under "/<SecretPath>".
	SecretPath string
	// Auth, when set, is an OAuth authorization server: its routes are
	// mounted at /.well-known/ and /oauth/, and the MCP routes accept its
	// access tokens (besides Token, when that is set too).
	Auth Authorizer
	// Policy decides what a person Auth signed in may do: a token issued
	// to a Person (not the owner) opens the MCP routes only when Policy
	// lets them read Library, asked on every request (403 otherwise). nil
	// refuses every Person.
	Policy identity.Policy
	// Library is this server's library as Policy and the audit trail name
	// it (a --library NAME).
	Library string
	// InsecureNoAuth allows a non-loopback Addr without Token.
	InsecureNoAuth bool
	// LinkKey is the HMAC key signing /docs links. Keep it stable across
	// restarts or links already handed out stop working; nil means a random
	// key for this process.
	LinkKey []byte
	// AllowedOrigins are extra browser origins accepted in an Origin header;
	// nil means DefaultAllowedOrigins.
	AllowedOrigins []string
	// MaxResults caps search results; 0 means DefaultMaxResults.
	MaxResults int
	// MaxFetchChars caps the text returned by fetch, in characters.
	MaxFetchChars int
	// MaxQueryLen caps the search query, in characters.
	MaxQueryLen int
	// MaxBodyBytes caps an HTTP request body.
	MaxBodyBytes int64
	// Logger receives all logs; nil means slog.Default().
	Logger *slog.Logger
	// Version is reported as the server version in initialize.
	Version string
	// ShowPaths puts each document's absolute local path in fetch metadata
	// ("source"); by default only its file name leaves the machine.
	ShowPaths bool
	// MaxSessions caps live streamable HTTP sessions; a new one beyond it
	// ends the least recently used. 0 means DefaultMaxSessions.
	MaxSessions int
	// SessionIdleTimeout ends a streamable HTTP session without requests
	// (or stream traffic) for this long; its client gets 404 and
	// initializes again. 0 means DefaultSessionIdleTimeout.
	SessionIdleTimeout time.Duration
	// NoSSE switches off the legacy HTTP+SSE transport, deprecated by the
	// MCP spec (2025-03-26): /sse, /sse/ and /message then answer 410 Gone
	// with a line pointing to /mcp, and URLs lists no SSE endpoint.
	NoSSE bool
	// MaxSSEStreams caps open legacy SSE streams; 0 means DefaultMaxSSEStreams.
	MaxSSEStreams int
	// MaxSSEStreamsPerClient caps the open legacy SSE streams of one
	// client (address); 0 means DefaultMaxSSEStreamsPerClient.
	MaxSSEStreamsPerClient int
	// MaxSSEPending caps the answers waiting on one legacy SSE stream whose
	// client does not read them; the stream is then closed. 0 means
	// DefaultMaxSSEPending.
	MaxSSEPending int
	// WriteTimeout bounds each write to a client (a stream lives on as
	// long as its client keeps reading); 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// BodyTimeout bounds the reading of a request body; 0 means
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxBodiesPerClient caps the request bodies one client (address) may
	// have in flight at once, everyone together 64 times as many; beyond
	// it a request is refused (503) unread. 0 means
	// DefaultMaxBodiesPerClient.
	MaxBodiesPerClient int
	// MaxConnsPerClient caps the connections one client (address) may
	// hold open at once, in any phase (everyone together 64 times as
	// many); a connection beyond it is closed when accepted. Behind a
	// tunnel every client shares one address: keep it above the streams
	// the tunnel carries. 0 means DefaultMaxConnsPerClient.
	MaxConnsPerClient int
	// Mount is "" or "/" followed by a library's name: every route of this
	// server (MCP, SSE and its messages, document links, the web page) is
	// then served under it, as Group serves several libraries on one
	// address. The OAuth routes stay at the root (Group serves them once).
	Mount string
	// Web, when set, is served at "/" and under "/ui/" (such as
	// server/web's interface). It guards itself: neither Token nor Auth
	// applies, and it limits its own request bodies (uploads are large).
	Web http.Handler
	// Observe, when set, is told of every tool call after it finishes. It
	// must be safe for concurrent use and return quickly.
	Observe func(Call)
	// Access, when set, hears every HTTP request once answered, like Observe.
	Access func(Request)
	// Metrics, when set, is served at /metrics behind /mcp's credential.
	Metrics http.Handler
}

// Server serves a Library over MCP (streamable HTTP, SSE, stdio) and serves
// the signed /docs links. Its methods are safe for concurrent use.
type Server struct {
	lib       Library
	opts      Options
	log       *slog.Logger
	public    *url.URL // nil when PublicURL is ""
	mount     string   // Options.Mount
	prefix    string   // mount, then "/" + SecretPath when set
	origins   map[string]bool
	mcp       *mcpserver.MCPServer
	http      *mcpserver.StreamableHTTPServer
	sessions  *sessionTable
	evicted   atomic.Int64 // sessions ended by the cap
	sse       *mcpserver.SSEServer
	sseConns  *sseLimiter
	bodies    *client.Gate // request bodies in flight
	busy      atomic.Int64 // requests refused by bodies
	handler   http.Handler
	mu        sync.Mutex
	boundAddr string        // set once listening
	ready     chan struct{} // closed once listening
	readyOnce sync.Once
	intro     instructionCache
	sigs      sigCache     // link signatures of cited documents
	spliceTok spliceTokens // placeholders of spliced tool results
	fast      fastPath     // tools/call without mcp-go's handlePost
}

// New validates opts and builds a Server for lib. It asks lib for a Summary
// to write the server instructions. Errors wrap ErrNeedAuth, ErrBadOption or
// the Summary error.
func New(lib Library, opts Options) (*Server, error) {
	if lib == nil {
		return nil, fmt.Errorf("%w: nil library", ErrBadOption)
	}
	if err := fillDefaults(&opts); err != nil {
		return nil, err
	}
	s := &Server{lib: lib, opts: opts, log: opts.Logger, ready: make(chan struct{}), spliceTok: newSpliceTokens()}
	if err := s.parseOptions(); err != nil {
		return nil, err
	}
	sum, err := s.summary(context.Background())
	if err != nil {
		return nil, fmt.Errorf("library summary: %w", err)
	}
	s.intro = instructionCache{text: Instructions(sum), at: time.Now(), ttl: instructionsTTL}
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeAny(noteMethod)
	s.initFast(hooks)
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.Instructions = s.instructions(ctx)
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Instructions = s.instructions(ctx)
	})
	s.mcp = mcpserver.NewMCPServer("mcpvec", opts.Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithInstructions(s.intro.text),
		mcpserver.WithHooks(hooks),
		mcpserver.WithRecovery(),
	)
	s.addTools(sum)
	s.buildHandler()
	return s, nil
}

func fillDefaults(o *Options) error {
	if o.MaxResults < 0 || o.MaxFetchChars < 0 || o.MaxQueryLen < 0 || o.MaxBodyBytes < 0 ||
		o.MaxSessions < 0 || o.SessionIdleTimeout < 0 || o.MaxSSEStreams < 0 || o.MaxSSEPending < 0 || o.MaxSSEStreamsPerClient < 0 ||
		o.WriteTimeout < 0 || o.BodyTimeout < 0 || o.MaxBodiesPerClient < 0 || o.MaxConnsPerClient < 0 {
		return fmt.Errorf("%w: negative limit", ErrBadOption)
	}
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	fillLimits(o)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.AllowedOrigins == nil {
		o.AllowedOrigins = DefaultAllowedOrigins
	}
	if len(o.LinkKey) == 0 {
		o.LinkKey = make([]byte, 32)
		if _, err := rand.Read(o.LinkKey); err != nil {
			return fmt.Errorf("link key: %w", err)
		}
		o.Logger.Warn("no link key given; document links will stop working after a restart")
	}
	return nil
}

// fillLimits replaces zero limits with their defaults.
func fillLimits(o *Options) {
	orDefault(&o.MaxResults, DefaultMaxResults)
	orDefault(&o.MaxFetchChars, DefaultMaxFetchChars)
	orDefault(&o.MaxQueryLen, DefaultMaxQueryLen)
	orDefault(&o.MaxBodyBytes, DefaultMaxBodyBytes)
	orDefault(&o.MaxSessions, DefaultMaxSessions)
	orDefault(&o.SessionIdleTimeout, DefaultSessionIdleTimeout)
	orDefault(&o.MaxSSEStreams, DefaultMaxSSEStreams)
	orDefault(&o.MaxSSEStreamsPerClient, DefaultMaxSSEStreamsPerClient)
	orDefault(&o.MaxSSEPending, DefaultMaxSSEPending)
	orDefault(&o.WriteTimeout, DefaultWriteTimeout)
	orDefault(&o.BodyTimeout, DefaultBodyTimeout)
	orDefault(&o.MaxBodiesPerClient, DefaultMaxBodiesPerClient)
	orDefault(&o.MaxConnsPerClient, DefaultMaxConnsPerClient)
}

func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

func (s *Server) parseOptions() error {
	o := s.opts
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("%w: addr %q: %v", ErrBadOption, o.Addr, err)
	}
	if o.Token == "" && o.Auth == nil && !o.InsecureNoAuth && !loopback.Host(host) {
		return fmt.Errorf("addr %q: %w", o.Addr, ErrNeedAuth)
	}
	if err := s.parseMount(); err != nil {
		return err
	}
	s.prefix = s.mount
	if o.SecretPath != "" {
		if !secretPathRE.MatchString(o.SecretPath) {
			return fmt.Errorf("%w: secret path must be \"k-\" and at least 32 letters, digits, - or _", ErrBadOption)
		}
		s.prefix += "/" + o.SecretPath
	}
	if o.PublicURL != "" {
		u, err := url.Parse(strings.TrimRight(o.PublicURL, "/"))
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("%w: public url %q must be an absolute http(s) url", ErrBadOption, o.PublicURL)
		}
		s.public = u
	}
	s.origins = make(map[string]bool)
	for _, origin := range o.AllowedOrigins {
		s.origins[strings.ToLower(strings.TrimRight(origin, "/"))] = true
	}
	if s.public != nil {
		s.origins[strings.ToLower(s.public.Scheme+"://"+s.public.Host)] = true
	}
	return nil
}

// Handler returns the HTTP handler: streamable HTTP at /mcp and /mcp/, SSE at
// /sse and /sse/ with its message endpoint at /message (all under the secret
// path prefix when set), /healthz, and signed links under /docs/. It is safe
// to use from many goroutines.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) buildHandler() {
	withBase := func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, baseKey{}, s.publicBase(r))
	}
	s.sessions = newSessionTable(s.opts.MaxSessions, s.evictSession)
	s.sessions.idle, s.sessions.end = s.opts.SessionIdleTimeout, s.endSession // not mcp-go's sweeper: see idle.go
	s.bodies = client.NewGate(s.opts.MaxBodiesPerClient, 64*s.opts.MaxBodiesPerClient)
	s.http = mcpserver.NewStreamableHTTPServer(s.mcp,
		mcpserver.WithDisableLocalhostProtection(true), // guard() replaces it
		mcpserver.WithHTTPContextFunc(withBase),
		mcpserver.WithStreamableHTTPLogger(s.log),
		mcpserver.WithSessionIdManagerResolver(s.sessions),
		// A ping on an open GET stream keeps its session from idling out.
		mcpserver.WithHeartbeatInterval(min(25*time.Second, s.opts.SessionIdleTimeout/2)),
	)
	s.sseConns = newSSELimiter(s.opts.MaxSSEStreams, s.opts.MaxSSEStreamsPerClient, s.opts.MaxSSEPending, s.log)
	s.sse = mcpserver.NewSSEServer(s.mcp,
		mcpserver.WithStaticBasePath(s.prefix),
		mcpserver.WithSSEEndpoint("/sse"),
		mcpserver.WithMessageEndpoint("/message"),
		mcpserver.WithUseFullURLForMessageEndpoint(false),
		mcpserver.WithSSEDisableLocalhostProtection(true),
		mcpserver.WithSSEContextFunc(withBase),
		mcpserver.WithKeepAliveInterval(25*time.Second),
		mcpserver.WithSessionIDGenerator(s.sseConns.newID),
	)
	streamable := s.streamDeadlines(s.http)
	stream := s.sseConns.stream(s.sse.SSEHandler(), s.withWriteDeadline)
	mcpMux := http.NewServeMux()
	mcpMux.Handle(s.prefix+"/mcp", streamable)
	mcpMux.Handle(s.prefix+"/mcp/", streamable)
	message := s.sseConns.message(s.sse.MessageHandler())
	if s.opts.NoSSE {
		stream, message = sseGone, sseGone
	}
	mcpMux.Handle(s.prefix+"/sse", stream)
	mcpMux.Handle(s.prefix+"/sse/", stream)
	mcpMux.Handle(s.prefix+"/message", message)
	mcpMux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	s.mountMetrics(mcpMux)
	root := http.NewServeMux()
	root.Handle(s.mount+"/docs/", http.HandlerFunc(s.serveDoc))
	s.mountAuth(root)
	s.mountWeb(root)
	root.Handle("/", s.requireAuth(mcpMux))
	s.handler = s.access(s.recoverPanics(s.guard(s.readBody(root))))
}

// Serve serves Handler on ln, which it closes, until ctx is cancelled, then
// shuts down gracefully (closing open SSE and HTTP streams, waiting at most
// 5 seconds). It logs the URLs to give an MCP client at debug level. A
// connection beyond MaxConnsPerClient of its client is closed as soon as
// accepted. It returns nil after a clean shutdown, else the serve error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return serveAll(ctx, ln, s.handler, []*Server{s})
}

// ServeStdio speaks MCP over in/out until ctx is cancelled or in ends. Tool
// results carry the source URL, else the file:// URL of the source file
// when ShowPaths is set, else "" (no server to link to). Only one
// ServeStdio may run per process (mcp-go keeps one stdio session).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	std := mcpserver.NewStdioServer(s.mcp)
	std.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelWarn))
	ss := newStreamSplicer()
	ctx = context.WithValue(ctx, streamSpliceKey{}, ss)
	if err := std.Listen(ctx, in, spliceWriter{w: out, ss: ss}); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}

// Ready returns a channel closed once Serve is listening;
// URLs then reports the bound port. Print URLs after it to tell the user.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// URLs returns the MCP endpoint URLs to print at start: the public ones
// (streamable HTTP, then SSE unless NoSSE) when PublicURL is set, then the local ones
// unless they are the same. After Serve has started, local URLs use the
// bound port.
func (s *Server) URLs() []string {
	s.mu.Lock()
	addr := s.boundAddr
	s.mu.Unlock()
	if addr == "" {
		addr = s.opts.Addr
	}
	var out []string
	host, port, _ := net.SplitHostPort(addr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	local := "http://" + net.JoinHostPort(host, port) + s.prefix
	if s.public != nil {
		base := s.public.String() + s.prefix
		out = append(out, base+"/mcp")
		if !s.opts.NoSSE {
			out = append(out, base+"/sse/")
		}
		if strings.EqualFold(base, local) {
			return out // a loopback public URL: the local ones are the same
		}
	}
	out = append(out, local+"/mcp")
	if !s.opts.NoSSE {
		out = append(out, local+"/sse")
	}
	return out
}

// recoverPanics turns a panic in a handler into a 500 so none escapes.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic in http handler", "path", r.URL.Path, "panic", v)
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
