package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// splitHost returns the lower-cased host of a Host header and its port, the
// port being "" when absent.
func splitHost(hostport string) (host, port string) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return strings.ToLower(strings.Trim(hostport, "[]")), ""
	}
	return strings.ToLower(h), p
}

// hostAllowed reports whether a request's Host header may reach the server
// over a loopback connection: a loopback name, or exactly the host (and
// port, default ports being equivalent to none) of PublicURL.
func (s *Server) hostAllowed(hostport string) bool {
	host, port := splitHost(hostport)
	if loopback.Host(host) {
		return true
	}
	if s.public == nil {
		return false
	}
	phost, pport := splitHost(s.public.Host)
	return host == phost && defaultPort(port, s.public.Scheme) == defaultPort(pport, s.public.Scheme)
}

func defaultPort(port, scheme string) string {
	if port != "" {
		return port
	}
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// originAllowed reports whether a browser Origin may drive the server:
// loopback origins, PublicURL's origin and the configured AllowedOrigins.
func (s *Server) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if loopback.Host(u.Hostname()) {
		return true
	}
	return s.origins[strings.ToLower(u.Scheme+"://"+u.Host)]
}

// guard is the DNS-rebinding and cross-origin protection. A request that
// arrives on a loopback connection must name a loopback host or the public
// host (a tunnel forwards with the public Host header); a request carrying an
// Origin header must come from an allowed origin, so a page on another site
// cannot drive the server through the visitor's browser.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil {
			lhost, _ := splitHost(local.String())
			if loopback.Host(lhost) && !s.hostAllowed(r.Host) {
				s.log.Warn("refused host", "host", r.Host, "path", r.URL.Path)
				http.Error(w, "forbidden: unexpected Host header (pass --public-url for a tunnel)", http.StatusForbidden)
				return
			}
		}
		origin := r.Header.Get("Origin")
		if origin == "" || (origin == "null" && s.isWeb(r)) {
			// The web interface sends Referrer-Policy: no-referrer, so its own
			// form posts carry "Origin: null"; its CSRF token and SameSite
			// cookie stop other sites there.
			next.ServeHTTP(w, r)
			return
		}
		if !s.originAllowed(origin) {
			s.log.Warn("refused origin", "origin", origin, "path", r.URL.Path)
			http.Error(w, "forbidden: origin not allowed", http.StatusForbidden)
			return
		}
		if corsHeaders(w, r, origin) {
			return // preflight answered; it carries no token by design
		}
		next.ServeHTTP(w, r)
	})
}

// corsHeaders lets browser-based MCP clients on an allowed origin (e.g. the
// MCP Inspector on localhost) read responses, and answers a CORS preflight,
// reporting true when it did.
func corsHeaders(w http.ResponseWriter, r *http.Request, origin string) bool {
	h := w.Header()
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// requireToken enforces "Authorization: Bearer <token>" when a token is set.
// Both sides are hashed first so the comparison takes the same time whatever
// the length of the guess.
func (s *Server) requireToken(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	want := sha256.Sum256([]byte(s.opts.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(auth, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvec"`)
			http.Error(w, "unauthorized: bearer token required", http.StatusUnauthorized)
			return
		}
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvec", error="invalid_token"`)
			http.Error(w, "unauthorized: invalid token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isWeb reports whether r is for the web interface (Options.Web).
func (s *Server) isWeb(r *http.Request) bool {
	if s.opts.Web == nil {
		return false
	}
	p, ok := strings.CutPrefix(r.URL.Path, s.mount) // pages under Mount
	return ok && (p == "/" || strings.HasPrefix(p, "/ui/")) || strings.HasPrefix(r.URL.Path, "/ui/static/")
}

// baseKey carries the public base URL of an HTTP request in a context.
type baseKey struct{}

// publicBase is the scheme://host a client reached the server at: PublicURL
// when set, else the Host header. X-Forwarded-Host and -Proto are not
// trusted: anyone can send them, and a proxy that rewrites them has a public
// address to pass as PublicURL (whose host alone the guard lets through).
func (s *Server) publicBase(r *http.Request) string {
	if s.public != nil {
		return s.public.Scheme + "://" + s.public.Host + s.public.Path
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
