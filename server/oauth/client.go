package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Registration limits: the registration endpoint is open to anyone who can
// reach the server, so it must not let them fill the library.
const (
	maxRedirectURIs   = 10
	maxURILen         = 2000
	maxClientNameLen  = 100
	maxClients        = 200
	unusedClientGrace = 24 * time.Hour
)

// errClient is an invalid client or redirect URI: never redirected to.
var errClient = errors.New("invalid client")

// registration is the part of an RFC 7591 request this server reads.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ApplicationType         string   `json:"application_type"`
}

// serveRegister is RFC 7591 dynamic registration of public clients (PKCE,
// no secret): whatever auth method is asked for, "none" is registered.
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	var reg registration
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&reg); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError("invalid_client_metadata", "body is not a JSON client metadata object"))
		return
	}
	if code, msg := checkRegistration(&reg); code != "" {
		writeJSON(w, http.StatusBadRequest, oauthError(code, msg))
		return
	}
	c, err := s.register(reg)
	if err != nil {
		s.log.Warn("oauth: register client", "err", err)
		writeJSON(w, http.StatusBadRequest, oauthError("invalid_client_metadata", err.Error()))
		return
	}
	s.log.Info("oauth: registered client", "client", c.ID, "name", c.Name, "application_type", c.ApplicationType, "redirect_uris", c.RedirectURIs)
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"application_type":           c.ApplicationType,
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"scope":                      Scope,
	})
}

func checkRegistration(reg *registration) (code, msg string) {
	if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirectURIs {
		return "invalid_redirect_uri", fmt.Sprintf("give 1 to %d redirect_uris", maxRedirectURIs)
	}
	for _, u := range reg.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return "invalid_redirect_uri", err.Error()
		}
	}
	if code, msg := checkApplicationType(reg); code != "" {
		return code, msg
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "invalid_client_metadata", fmt.Sprintf("grant type %q is not supported", g)
		}
	}
	for _, t := range reg.ResponseTypes {
		if t != "code" {
			return "invalid_client_metadata", fmt.Sprintf("response type %q is not supported", t)
		}
	}
	reg.ClientName = cleanName(reg.ClientName)
	return "", ""
}

// checkRedirectURI accepts https URLs, http URLs on a loopback host and
// private-use scheme URIs (native apps, RFC 8252), without fragments or
// user info; checkApplicationType then narrows them by application type.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > maxURILen || u.Scheme == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("redirect uri %q must be an absolute URL without fragment", raw)
	}
	if !redirectSchemeOK(u) {
		return fmt.Errorf("redirect uri %q must be https, http on a loopback address, or a native app's reverse-domain scheme (com.example.app:/callback)", raw)
	}
	return nil
}

// cleanName keeps a client name printable and short.
func cleanName(n string) string {
	n = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, strings.TrimSpace(n))
	if r := []rune(n); len(r) > maxClientNameLen {
		n = string(r[:maxClientNameLen])
	}
	return n
}

func (s *Server) register(reg registration) (*Client, error) {
	id, err := randomToken("mcpvec-client-")
	if err != nil {
		return nil, err
	}
	c := &Client{ID: id[:len("mcpvec-client-")+22], Name: reg.ClientName, RedirectURIs: reg.RedirectURIs,
		ApplicationType: reg.ApplicationType, Created: s.now().UTC()}
	err = s.update(func(tx Tx) error {
		if err := s.pruneClients(tx); err != nil {
			return err
		}
		return putJSON(tx, kindClient, c.ID, c)
	})
	return c, err
}

// pruneClients makes room for one more registration: it forgets clients
// that never got a grant within a day of registering and, when maxClients
// are still registered, the oldest client without a grant (so strangers
// registering in bulk cannot lock the owner's assistants out). It fails only
// when every client holds a grant.
func (s *Server) pruneClients(tx Tx) error {
	used := map[string]bool{}
	err := tx.ForEach(kindGrant, func(_ string, b []byte) error {
		var g Grant
		if json.Unmarshal(b, &g) == nil {
			used[g.ClientID] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	old := s.now().Add(-unusedClientGrace)
	n, oldest := 0, (*Client)(nil)
	err = deleteWhere(tx, kindClient, func(id string, c *Client) bool {
		if used[id] || !c.Created.Before(old) {
			n++
			if !used[id] && (oldest == nil || c.Created.Before(oldest.Created)) {
				oldest = c
			}
			return false
		}
		return true
	})
	if err != nil || n < maxClients {
		return err
	}
	if oldest == nil {
		return fmt.Errorf("%d clients hold grants; revoke some with `mcpvec auth revoke`", n)
	}
	return tx.Delete(kindClient, oldest.ID)
}

// lookupClient finds a client: a metadata document URL is fetched (cached),
// any other id must be registered. Errors wrap errClient.
func (s *Server) lookupClient(ctx context.Context, id string) (*Client, error) {
	if isMetadataURL(id) {
		c, err := s.fetcher.fetch(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errClient, err)
		}
		return c, nil
	}
	var c Client
	found, err := s.load(kindClient, id, &c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: unknown client_id %q", errClient, id)
	}
	return &c, nil
}

// isMetadataURL reports whether a client_id is a URL (and so names a client
// ID metadata document) rather than an id this server registered.
func isMetadataURL(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// redirectAllowed reports whether uri is exactly one of the client's.
func (c *Client) redirectAllowed(uri string) bool {
	return uri != "" && slices.Contains(c.RedirectURIs, uri)
}

// rememberClient stores a metadata-document client so `mcpvec auth ls`
// can name it.
func rememberClient(tx Tx, c *Client) error {
	if !c.Document {
		return nil
	}
	return putJSON(tx, kindClient, c.ID, c)
}

func oauthError(code, desc string) map[string]string {
	return map[string]string{"error": code, "error_description": desc}
}
