package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

// serveResourceMetadata answers RFC 9728 protected-resource metadata: at the
// root for the whole server (resource = issuer) and path-suffixed for each
// resource (".../oauth-protected-resource/mcp" → issuer + "/mcp").
func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	resource := s.cfg.Issuer
	if suffix := strings.TrimPrefix(r.URL.Path, pathPRM); suffix != "" && suffix != "/" {
		resource = s.cfg.Issuer + suffix
		if !s.audiences[resource] {
			http.NotFound(w, r)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{s.cfg.Issuer},
		"bearer_methods_supported": []string{"header"},
		"scopes_supported":         []string{Scope},
		"resource_name":            "mcpvec library",
	})
}

// serveServerMetadata answers RFC 8414 authorization-server metadata (also
// at the OpenID discovery path, which many clients try first).
func (s *Server) serveServerMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.cfg.Issuer
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + pathAuthorize,
		"token_endpoint":                                 iss + pathToken,
		"registration_endpoint":                          iss + pathRegister,
		"revocation_endpoint":                            iss + pathRevoke,
		"scopes_supported":                               []string{Scope},
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
	})
}

// Authenticate checks the request's bearer token: it must be an unexpired
// access token issued by this server (looked up in this Store), of a grant
// not revoked, bound to one of this server's resources. It returns nil, or
// an error matching ErrNoToken or ErrInvalidToken, or a store error. It
// records the grant's last use (at most once a minute). The Person is who
// the grant was made for: the zero Person when the owner approved it.
func (s *Server) Authenticate(r *http.Request) (identity.Person, error) {
	return s.authenticate(r, s.audiences)
}

// authenticate is Authenticate accepting the resources in allowed.
func (s *Server) authenticate(r *http.Request, allowed map[string]bool) (identity.Person, error) {
	tok, ok := bearerToken(r)
	if !ok {
		return identity.Person{}, ErrNoToken
	}
	var g Grant
	err := s.cfg.Store.View(func(tx Tx) error {
		var t tokenRecord
		found, err := getJSON(tx, kindToken, hashToken(tok), &t)
		if err != nil {
			return err
		}
		if !found || t.Kind != tokenAccess || s.now().After(t.Expires) {
			return fmt.Errorf("%w: unknown or expired", ErrInvalidToken)
		}
		if found, err = getJSON(tx, kindGrant, t.GrantID, &g); err != nil || !found {
			return errors.Join(fmt.Errorf("%w: revoked", ErrInvalidToken), err)
		}
		if !allowed[g.Resource] {
			return fmt.Errorf("%w: issued for %q", ErrInvalidToken, g.Resource)
		}
		return nil
	})
	if err != nil {
		return identity.Person{}, err
	}
	s.touch(g.ID)
	if g.Person == nil {
		return identity.Person{}, nil
	}
	return *g.Person, nil
}

// touch records a grant's last use, writing at most once a minute per grant.
func (s *Server) touch(grantID string) {
	now := s.now()
	s.mu.Lock()
	last, ok := s.lastUse[grantID]
	if ok && now.Sub(last) < time.Minute {
		s.mu.Unlock()
		return
	}
	s.lastUse[grantID] = now
	s.mu.Unlock()
	err := s.update(func(tx Tx) error {
		var g Grant
		if found, err := getJSON(tx, kindGrant, grantID, &g); err != nil || !found {
			return err
		}
		g.LastUsed = now.UTC()
		return putJSON(tx, kindGrant, grantID, &g)
	})
	if err != nil {
		s.log.Warn("oauth: record last use", "grant", grantID, "err", err)
	}
}

// Challenge answers a request that Authenticate refused: 401 with
// WWW-Authenticate naming the resource metadata for the requested path, so
// a client can discover where to sign in.
func (s *Server) Challenge(w http.ResponseWriter, r *http.Request, err error) {
	v := fmt.Sprintf(`Bearer resource_metadata="%s"`, s.metadataURLFor(r.URL.Path))
	msg := "unauthorized: sign in with OAuth (or send the server's bearer token)"
	if !errors.Is(err, ErrNoToken) {
		if !errors.Is(err, ErrInvalidToken) {
			s.log.Error("oauth: check token", "err", err)
		}
		v += `, error="invalid_token", error_description="the access token is invalid, expired or revoked"`
		msg = "unauthorized: invalid token"
	}
	w.Header().Set("WWW-Authenticate", v)
	http.Error(w, msg, http.StatusUnauthorized)
}

// metadataURLFor returns the resource-metadata URL of the resource whose path
// is the longest prefix of path, or the root one.
func (s *Server) metadataURLFor(path string) string {
	best := ""
	for _, res := range s.cfg.Resources {
		u, err := url.Parse(res)
		if err != nil || u.Path == "" || u.Path == "/" {
			continue
		}
		if (path == u.Path || strings.HasPrefix(path, u.Path+"/")) && len(u.Path) > len(best) {
			best = u.Path
		}
	}
	return s.cfg.Issuer + pathPRM + best
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
