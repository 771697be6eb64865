package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// Group serves several libraries on one address, each by its own Server
// under its Options.Mount ("/papers/mcp", "/papers/sse",
// "/papers/docs/…", the web page at "/papers/"). The first Server leads:
// the OAuth routes (/.well-known/, /oauth/), /healthz, the web page's
// static files and its return from the OpenID provider are its, "/"
// leads to its web page, and its Options set the connection limits. Any
// other path, /mcp and /sse included, is a 404: a client must name the
// library it means. Its methods are safe for concurrent use.
type Group struct {
	servers []*Server
	handler http.Handler
}

// NewGroup routes to servers, which must each have a distinct Mount. The
// error wraps ErrBadOption.
func NewGroup(servers ...*Server) (*Group, error) {
	if len(servers) == 0 {
		return nil, fmt.Errorf("%w: a group of no servers", ErrBadOption)
	}
	mux := http.NewServeMux()
	seen := make(map[string]bool)
	for _, s := range servers {
		if s.mount == "" || seen[s.mount] {
			return nil, fmt.Errorf("%w: each server of a group needs its own mount (got %q)", ErrBadOption, s.mount)
		}
		seen[s.mount] = true
		mux.Handle(s.mount+"/", s.handler)
		mux.Handle(s.mount, s.handler)
	}
	lead := servers[0]
	for _, p := range []string{"/.well-known/", "/oauth/", "/healthz", "/ui/static/", "/ui/signin/callback"} {
		mux.Handle(p, lead.handler)
	}
	if lead.opts.Web != nil {
		mux.Handle("GET /{$}", lead.recoverPanics(lead.guard(http.RedirectHandler(lead.mount+"/", http.StatusSeeOther))))
	}
	mux.Handle("/", lead.recoverPanics(lead.guard(http.HandlerFunc(notInGroup))))
	return &Group{servers: servers, handler: mux}, nil
}

// notInGroup answers a path outside every library of a Group.
func notInGroup(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, "not found: this server serves several libraries, each under its own path (/NAME/mcp, /NAME/sse)\n")
}

// Handler returns the group's HTTP handler.
func (g *Group) Handler() http.Handler { return g.handler }

// Servers returns the servers of the group, the lead first.
func (g *Group) Servers() []*Server { return append([]*Server(nil), g.servers...) }

// Serve serves the group on ln as Server.Serve serves one library; every
// server's URLs then report the bound port.
func (g *Group) Serve(ctx context.Context, ln net.Listener) error {
	return serveAll(ctx, ln, g.handler, g.servers)
}

// serveAll serves h on ln, which it closes, until ctx is cancelled, then
// shuts down gracefully: the MCP sessions and streams of every server in
// servers, and the HTTP server, waiting at most 5 seconds. servers[0]
// sets the limits and the logger.
func serveAll(ctx context.Context, ln net.Listener, h http.Handler, servers []*Server) error {
	lead := servers[0]
	for _, s := range servers {
		s.listening(ln.Addr().String())
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// Room for the web page's search URL with a 20,000-character query
		// of any script (9 bytes a character, percent-encoded).
		MaxHeaderBytes: 256 << 10,
		ErrorLog:       slog.NewLogLogger(lead.log.Handler(), slog.LevelWarn),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	ln = &limitListener{Listener: ln, gate: client.NewGate(lead.opts.MaxConnsPerClient, 64*lead.opts.MaxConnsPerClient),
		max: lead.opts.MaxConnsPerClient, log: lead.log}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		s.sse.CloseSessions()
		if err := s.http.Shutdown(sctx); err != nil {
			s.log.Warn("close mcp sessions", "err", err)
		}
	}
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		lead.log.Warn("forced shutdown", "err", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// listening records the address Serve listens on and logs the URLs to give
// an MCP client at debug level (the command that serves prints them).
func (s *Server) listening(addr string) {
	s.mu.Lock()
	s.boundAddr = addr
	s.mu.Unlock()
	s.readyOnce.Do(func() { close(s.ready) })
	for _, u := range s.URLs() {
		s.log.Debug("mcp endpoint", "url", u)
	}
}
