package oauth

import (
	"fmt"
	"net/http"

	"github.com/mcpvec/mcpvec/server/identity"
)

// Resource is one protected resource of a Server that serves several (one
// library among several on one address): its routes, challenges and
// passphrase check are the Server's, but Authenticate accepts only access
// tokens bound (RFC 8707) to one of its own resource URLs. It is safe for
// concurrent use.
type Resource struct {
	*Server
	allowed map[string]bool
}

// Only returns the Resource of s made of the resource URLs given, each
// one of Config.Resources; an error wraps ErrConfig.
func (s *Server) Only(resources ...string) (*Resource, error) {
	allowed := make(map[string]bool, len(resources))
	for _, r := range resources {
		if !s.audiences[r] || r == s.cfg.Issuer || r == s.cfg.Issuer+"/" {
			return nil, fmt.Errorf("%w: %q is not one of the server's resources", ErrConfig, r)
		}
		allowed[r] = true
	}
	if len(allowed) == 0 {
		return nil, fmt.Errorf("%w: no resource", ErrConfig)
	}
	return &Resource{Server: s, allowed: allowed}, nil
}

// Authenticate is Server.Authenticate for this resource alone: a token
// bound to another resource of the same Server (another library), or to
// the Server as a whole, is ErrInvalidToken.
func (r *Resource) Authenticate(req *http.Request) (identity.Person, error) {
	return r.Server.authenticate(req, r.allowed)
}
