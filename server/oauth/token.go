package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// pkceVerifierRE is RFC 7636's code_verifier.
var pkceVerifierRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// tokenError is an RFC 6749 §5.2 error answer.
type tokenError struct {
	status      int
	code, desc  string
	logAsAttack bool // worth a warning: replay or reuse
}

func grantError(desc string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: "invalid_grant", desc: desc}
}

// attackError is an invalid_grant that suggests a stolen or replayed
// credential, logged as such.
func attackError(desc string) *tokenError {
	t := grantError(desc)
	t.logAsAttack = true
	return t
}

// serveToken is the token endpoint: authorization_code (with PKCE) and
// refresh_token grants for public clients.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Pragma", "no-cache")
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError("invalid_request", "the body must be application/x-www-form-urlencoded"))
		return
	}
	f := r.PostForm
	clientID := f.Get("client_id")
	if user, _, ok := r.BasicAuth(); ok && clientID == "" {
		clientID, _ = url.QueryUnescape(user)
	}
	var resp map[string]any
	var terr *tokenError
	switch f.Get("grant_type") {
	case "authorization_code":
		resp, terr = s.exchangeCode(f, clientID)
	case "refresh_token":
		resp, terr = s.refresh(f, clientID)
	default:
		terr = &tokenError{status: http.StatusBadRequest, code: "unsupported_grant_type", desc: "use authorization_code or refresh_token"}
	}
	if terr != nil {
		level := s.log.Info
		if terr.logAsAttack {
			level = s.log.Warn
		}
		level("oauth: token refused", "client", clientID, "grant_type", f.Get("grant_type"), "error", terr.code, "reason", terr.desc)
		writeJSON(w, terr.status, oauthError(terr.code, terr.desc))
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// exchangeCode redeems a code. A code is single-use: any attempt to redeem
// it, right or wrong, spends it, and a second redemption revokes the tokens
// the first one got.
func (s *Server) exchangeCode(f url.Values, clientID string) (map[string]any, *tokenError) {
	code, verifier := f.Get("code"), f.Get("code_verifier")
	if code == "" || clientID == "" {
		return nil, &tokenError{status: http.StatusBadRequest, code: "invalid_request", desc: "code and client_id are required"}
	}
	return s.redeem("redeem code", func(tx Tx) (map[string]any, *tokenError, error) {
		var c codeRecord
		found, err := getJSON(tx, kindCode, hashToken(code), &c)
		if err != nil || !found {
			return nil, grantError("unknown authorization code"), err
		}
		if c.Used {
			return nil, attackError("authorization code already used; the tokens it gave are revoked"), revokeGrant(tx, c.GrantID)
		}
		c.Used = true
		if terr := s.checkCode(&c, f, clientID, verifier); terr != nil {
			return nil, terr, putJSON(tx, kindCode, hashToken(code), &c)
		}
		if terr := s.admitGrantee(c.Person, c.Resource); terr != nil {
			return nil, terr, putJSON(tx, kindCode, hashToken(code), &c)
		}
		g := Grant{ClientID: c.ClientID, ClientName: c.ClientName, Resource: c.Resource, Scope: Scope,
			Created: s.now().UTC(), Person: c.Person}
		resp, err := s.newGrant(tx, &g, &c)
		if err != nil {
			return nil, nil, err
		}
		c.GrantID = g.ID
		return resp, nil, putJSON(tx, kindCode, hashToken(code), &c)
	})
}

// redeem runs fn, which redeems a code or a refresh token, in one store
// transaction and returns its token response or refusal; a store failure
// is logged with what and answered as server_error.
func (s *Server) redeem(what string, fn func(tx Tx) (map[string]any, *tokenError, error)) (map[string]any, *tokenError) {
	var resp map[string]any
	var terr *tokenError
	err := s.update(func(tx Tx) error {
		var err error
		resp, terr, err = fn(tx)
		return err
	})
	if err != nil {
		s.log.Error("oauth: "+what, "err", err)
		return nil, &tokenError{status: http.StatusInternalServerError, code: "server_error", desc: "the server could not issue tokens"}
	}
	return resp, terr
}

func (s *Server) checkCode(c *codeRecord, f url.Values, clientID, verifier string) *tokenError {
	switch {
	case s.now().After(c.Expires):
		return grantError("authorization code expired")
	case c.ClientID != clientID:
		return attackError("authorization code was issued to another client")
	case f.Get("redirect_uri") != c.RedirectURI:
		return grantError("redirect_uri differs from the authorization request's")
	case !pkceVerifierRE.MatchString(verifier) || !pkceMatch(verifier, c.Challenge):
		return grantError("PKCE verification failed: code_verifier does not match the S256 code_challenge")
	}
	return checkResource(f, c.Resource)
}

// checkResource refuses a resource parameter other than the bound one (a
// trailing slash aside).
func checkResource(f url.Values, bound string) *tokenError {
	if res := f["resource"]; len(res) > 0 && (len(res) > 1 || strings.TrimSuffix(res[0], "/") != bound) {
		return &tokenError{status: http.StatusBadRequest, code: "invalid_target", desc: "resource differs from the one authorized: " + bound}
	}
	return nil
}

// pkceMatch reports whether BASE64URL(SHA256(verifier)) equals challenge.
func pkceMatch(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// newGrant stores a grant for a redeemed code (and the client, when it is
// known by a metadata document) and issues its first tokens.
func (s *Server) newGrant(tx Tx, g *Grant, c *codeRecord) (map[string]any, error) {
	id, err := randomToken("")
	if err != nil {
		return nil, err
	}
	g.ID = "g-" + id[:16]
	if isMetadataURL(c.ClientID) {
		cl := &Client{ID: c.ClientID, Name: c.ClientName, RedirectURIs: []string{c.RedirectURI}, Document: true, Created: g.Created}
		if err := rememberClient(tx, cl); err != nil {
			return nil, err
		}
	}
	if err := putJSON(tx, kindGrant, g.ID, g); err != nil {
		return nil, err
	}
	return s.issueTokens(tx, g.ID)
}

// issueTokens stores a new access and refresh token of a grant (as hashes)
// and returns the token response.
func (s *Server) issueTokens(tx Tx, grantID string) (map[string]any, error) {
	access, err := randomToken("mcpvec_at_")
	if err != nil {
		return nil, err
	}
	refresh, err := randomToken("mcpvec_rt_")
	if err != nil {
		return nil, err
	}
	now := s.now()
	if err := putJSON(tx, kindToken, hashToken(access), tokenRecord{Kind: tokenAccess, GrantID: grantID, Expires: now.Add(s.cfg.AccessTTL)}); err != nil {
		return nil, err
	}
	if err := putJSON(tx, kindToken, hashToken(refresh), tokenRecord{Kind: tokenRefresh, GrantID: grantID, Expires: now.Add(s.cfg.RefreshTTL)}); err != nil {
		return nil, err
	}
	return map[string]any{
		"access_token":  access,
		"token_type":    "Bearer",
		"expires_in":    int(s.cfg.AccessTTL / time.Second),
		"refresh_token": refresh,
		"scope":         Scope,
	}, nil
}

// refresh rotates a refresh token. Presenting a spent one means it leaked
// (or a client is confused): the whole grant is revoked.
func (s *Server) refresh(f url.Values, clientID string) (map[string]any, *tokenError) {
	rt := f.Get("refresh_token")
	if rt == "" || clientID == "" {
		return nil, &tokenError{status: http.StatusBadRequest, code: "invalid_request", desc: "refresh_token and client_id are required"}
	}
	return s.redeem("refresh", func(tx Tx) (map[string]any, *tokenError, error) {
		var t tokenRecord
		var g Grant
		found, err := getJSON(tx, kindToken, hashToken(rt), &t)
		if err == nil && found && t.Kind == tokenRefresh {
			found, err = getJSON(tx, kindGrant, t.GrantID, &g)
		}
		if err != nil || !found || t.Kind != tokenRefresh {
			return nil, grantError("unknown or revoked refresh token"), err
		}
		if terr := s.checkRefresh(&t, &g, f, clientID); terr != nil {
			if t.Spent {
				return nil, terr, revokeGrant(tx, g.ID)
			}
			return nil, terr, nil
		}
		if terr := s.admitGrantee(g.Person, g.Resource); terr != nil {
			return nil, terr, nil
		}
		t.Spent = true
		if err := putJSON(tx, kindToken, hashToken(rt), &t); err != nil {
			return nil, nil, err
		}
		resp, err := s.issueTokens(tx, g.ID)
		return resp, nil, err
	})
}

func (s *Server) checkRefresh(t *tokenRecord, g *Grant, f url.Values, clientID string) *tokenError {
	switch {
	case t.Spent:
		return attackError("refresh token already used; the grant is revoked")
	case s.now().After(t.Expires):
		return grantError("refresh token expired")
	case g.ClientID != clientID:
		return attackError("refresh token was issued to another client")
	}
	return checkResource(f, g.Resource)
}

// serveRevoke is RFC 7009 revocation: revoking any token of a grant revokes
// the grant. Unknown tokens get 200 too, as the RFC asks.
func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		writeJSON(w, http.StatusBadRequest, oauthError("invalid_request", "token is required"))
		return
	}
	h, clientID := hashToken(r.PostForm.Get("token")), r.PostForm.Get("client_id")
	err := s.update(func(tx Tx) error {
		var t tokenRecord
		var g Grant
		found, err := getJSON(tx, kindToken, h, &t)
		if err == nil && found {
			found, err = getJSON(tx, kindGrant, t.GrantID, &g)
		}
		if err != nil || !found || (clientID != "" && clientID != g.ClientID) {
			return err
		}
		s.log.Info("oauth: grant revoked by its client", "grant", g.ID, "client", g.ClientID)
		return revokeGrant(tx, g.ID)
	})
	if err != nil {
		s.log.Error("oauth: revoke", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, oauthError("temporarily_unavailable", "try again"))
		return
	}
	w.WriteHeader(http.StatusOK)
}
