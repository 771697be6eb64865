package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mcpvec/mcpvec/server/identity"
)

// Authorizer is an OAuth authorization server serving beside the MCP routes
// (package server/oauth implements it). It must be safe for concurrent use.
type Authorizer interface {
	// ServeHTTP serves the discovery documents under /.well-known/ and the
	// endpoints under /oauth/.
	http.Handler
	// Authenticate reports whether r carries a valid access token (nil
	// error) or why not, and who the token was issued to: the zero Person
	// for the owner.
	Authenticate(r *http.Request) (identity.Person, error)
	// Challenge answers a request Authenticate refused with err, with a 401
	// that tells the client where to sign in.
	Challenge(w http.ResponseWriter, r *http.Request, err error)
}

// mountAuth adds the Authorizer's routes to root, when there is one.
func (s *Server) mountAuth(root *http.ServeMux) {
	if s.opts.Auth == nil {
		return
	}
	root.Handle("/.well-known/", s.opts.Auth)
	root.Handle("/oauth/", s.opts.Auth)
}

// requireAuth protects next with the static token, the Authorizer, or both:
// with both, the static token is tried first and anything else must be an
// access token the Authorizer accepts.
func (s *Server) requireAuth(next http.Handler) http.Handler {
	a := s.opts.Auth
	if a == nil {
		return s.requireToken(next)
	}
	var want []byte
	if s.opts.Token != "" {
		sum := sha256.Sum256([]byte(s.opts.Token))
		want = sum[:]
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want != nil {
			scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
			if ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], want) == 1 {
				next.ServeHTTP(w, r)
				return
			}
		}
		p, err := a.Authenticate(r)
		if err != nil {
			a.Challenge(w, r, err)
			return
		}
		if !p.IsZero() {
			r = r.WithContext(identity.NewContext(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}
