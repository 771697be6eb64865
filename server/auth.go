package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
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
			if nt := noteOf(r.Context()); nt != nil {
				nt.mu.Lock()
				nt.person = p
				nt.mu.Unlock()
			}
			if !s.allows(p, identity.Read) {
				s.forbid(w, p)
				return
			}
			r = r.WithContext(identity.NewContext(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}

// allows reports whether Options.Policy lets p have right r in this
// server's library; without a Policy nobody but the owner may.
func (s *Server) allows(p identity.Person, r identity.Right) bool {
	return p.IsZero() || (s.opts.Policy != nil && s.opts.Policy.Allows(p, s.opts.Library, r))
}

// forbid answers a request of p, whose token is good but who may not read
// this library, with 403 and an RFC 6750 insufficient_scope challenge.
func (s *Server) forbid(w http.ResponseWriter, p identity.Person) {
	msg := fmt.Sprintf("%s may not read this library (%s): ask its owner to add you to the allow-list", p.Label(), s.opts.Library)
	s.log.Info("refused: not on the allow-list", "person", p.Label(), "library", s.opts.Library)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", error_description=%q`, msg))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	json.NewEncoder(w).Encode(map[string]string{"error": "insufficient_scope", "error_description": msg})
}
