package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/identity"
)

// Request describes one HTTP request the server answered, reported to
// Options.Access when the handler returns (for a stream, when it ends).
type Request struct {
	Time     time.Time
	Method   string // the HTTP method
	Route    string // the route: "/mcp", "/sse", "/message", "/docs", "/oauth/token", "/oauth", "/.well-known", "/ui", "/", "/healthz", "/metrics" or "other"
	Status   int
	Bytes    int64 // response body bytes written
	Duration time.Duration
	// MCPMethod is the JSON-RPC method of an MCP message ("tools/call",
	// "initialize"), "" for other requests.
	MCPMethod string
	// Session is the MCP session id the request carried or was given.
	Session string
	// TraceParent is the HTTP traceparent header, "" when absent.
	TraceParent string
	// Call is the tool call the request carried, nil when none.
	Call *Call
	// Person is who the request's access token was issued to; the zero
	// Person for the owner, the static token, or no credential.
	Person identity.Person
}

// Refused reports whether the server turned the request away before
// MCP saw it: no credential, a foreign host or origin, too big, too busy.
func (r Request) Refused() bool {
	switch r.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge,
		http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return r.MCPMethod == ""
	}
	return false
}

// note is what the MCP layers learn of a request, for its access line.
// Its fields are guarded by mu: over legacy SSE, mcp-go handles a message
// in a goroutine of its own, after the HTTP request was answered.
type note struct {
	mu     sync.Mutex
	method string
	id     string
	call   *Call
	person identity.Person
}

type noteKey struct{}

func noteOf(ctx context.Context) *note {
	nt, _ := ctx.Value(noteKey{}).(*note)
	return nt
}

// noteMethod is an mcp-go BeforeAny hook: it records the JSON-RPC method
// and id on the request's note.
func noteMethod(ctx context.Context, id any, method mcp.MCPMethod, _ any) {
	if nt := noteOf(ctx); nt != nil {
		nt.mu.Lock()
		defer nt.mu.Unlock()
		nt.method = string(method)
		if id != nil {
			nt.id = fmt.Sprint(id)
		}
	}
}

// access reports every request to Options.Access, with the MCP method and
// tool call the request carried; without Access it is next.
func (s *Server) access(next http.Handler) http.Handler {
	if s.opts.Access == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		nt := &note{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), noteKey{}, nt)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		session := w.Header().Get("Mcp-Session-Id")
		if session == "" {
			session = r.Header.Get("Mcp-Session-Id")
		}
		nt.mu.Lock()
		req := Request{Time: start, Method: r.Method, Route: s.route(r.URL.Path), Status: sw.status,
			Bytes: sw.bytes, Duration: time.Since(start), MCPMethod: nt.method, Session: session,
			TraceParent: r.Header.Get("Traceparent"), Call: nt.call, Person: nt.person}
		nt.mu.Unlock()
		s.opts.Access(req)
	})
}

// route names the route of path, without the secret prefix, so a label
// or log line has a few values and never carries the secret.
func (s *Server) route(path string) string {
	if s.prefix != "" && strings.HasPrefix(path, s.prefix+"/") {
		path = strings.TrimPrefix(path, s.prefix)
	}
	for _, r := range []string{"/mcp", "/sse", "/message", "/docs", "/oauth/token", "/oauth", "/.well-known", "/ui", "/healthz", "/metrics"} {
		if path == r || strings.HasPrefix(path, r+"/") {
			return r
		}
	}
	if path == "/" {
		return "/"
	}
	return "other"
}

// statusWriter remembers a response's status and size.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher for the streams behind it.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// mountMetrics serves Options.Metrics, when set, at /metrics on mux: the
// MCP routes' mux, behind their credential.
func (s *Server) mountMetrics(mux *http.ServeMux) {
	if s.opts.Metrics != nil {
		mux.Handle("/metrics", s.opts.Metrics)
	}
}
