package oauth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// maxPending caps the sign-ins waiting for consent: each is a write, and
// anyone who can reach the server can start one.
const maxPending = 50

var errTooManyPending = errors.New("too many sign-ins are waiting for approval; try again in a few minutes")

// pkceChallengeRE matches an S256 code challenge: base64url of 32 bytes.
var pkceChallengeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// serveAuthorize starts an authorization: it checks the client and its
// redirect URI (answering an error page, never a redirect, when either is
// wrong), then the request (errors go back to the redirect URI), and shows
// the consent page.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "The authorization request is malformed.")
		return
	}
	q := r.Form
	c, err := s.lookupClient(r.Context(), q.Get("client_id"))
	if err != nil {
		s.log.Warn("oauth: authorize refused", "client", q.Get("client_id"), "err", err)
		if !errors.Is(err, errClient) {
			s.errorPage(w, http.StatusInternalServerError, "The server could not look up the client.")
			return
		}
		s.errorPage(w, http.StatusBadRequest, "The application is unknown to this server: "+err.Error())
		return
	}
	redirect := q.Get("redirect_uri")
	if !c.redirectAllowed(redirect) {
		s.log.Warn("oauth: authorize refused: redirect uri not registered", "client", c.ID, "redirect_uri", redirect)
		s.errorPage(w, http.StatusBadRequest, "The redirect_uri is not one the application registered.")
		return
	}
	resource, code, desc := s.checkAuthRequest(q)
	if code != "" {
		s.redirectError(w, r, redirect, q.Get("state"), code, desc)
		return
	}
	p := &pending{ClientID: c.ID, ClientName: c.Name, RedirectURI: redirect, State: q.Get("state"),
		Challenge: q.Get("code_challenge"), Resource: resource}
	csrf, err := s.savePending(p)
	if errors.Is(err, errTooManyPending) {
		s.log.Warn("oauth: authorize refused", "client", c.ID, "err", err)
		s.errorPage(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if err != nil {
		s.log.Error("oauth: save consent request", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "The server could not save the request.")
		return
	}
	s.setConsentCookie(w, p.ID, csrf)
	s.renderConsent(w, http.StatusOK, p, csrf, "")
}

// checkAuthRequest checks response type, PKCE and resource, returning the
// resource to bind, or an OAuth error code and description.
func (s *Server) checkAuthRequest(q url.Values) (resource, code, desc string) {
	if q.Get("response_type") != "code" {
		return "", "unsupported_response_type", "only response_type=code is supported"
	}
	switch m := q.Get("code_challenge_method"); {
	case m == "plain":
		return "", "invalid_request", "PKCE method plain is not allowed; use S256"
	case m != "S256" || q.Get("code_challenge") == "":
		return "", "invalid_request", "PKCE with code_challenge_method=S256 is required"
	case !pkceChallengeRE.MatchString(q.Get("code_challenge")):
		return "", "invalid_request", "code_challenge is not a base64url SHA-256"
	}
	resources := q["resource"]
	if len(resources) == 0 {
		return s.cfg.Resources[0], "", ""
	}
	// A trailing slash is forgiven: it is how the URL was pasted, not
	// another resource.
	res := strings.TrimSuffix(resources[0], "/")
	if len(resources) > 1 || !s.audiences[res] {
		return "", "invalid_target", "resource is not served here; expected " + s.cfg.Resources[0]
	}
	return res, "", ""
}

// savePending stores a consent request with fresh id, CSRF token and
// approval code; it returns the CSRF token.
func (s *Server) savePending(p *pending) (string, error) {
	id, err := randomToken("")
	if err != nil {
		return "", err
	}
	csrf, err := randomToken("")
	if err != nil {
		return "", err
	}
	if p.ApproveCode, err = approveCode(); err != nil {
		return "", err
	}
	p.ID, p.CSRFHash, p.Expires = id, hashToken(csrf), s.now().Add(s.cfg.ConsentTTL)
	err = s.update(func(tx Tx) error {
		if err := sweep(tx, s.now()); err != nil {
			return err
		}
		n := 0
		if err := tx.ForEach(kindPending, func(string, []byte) error { n++; return nil }); err != nil {
			return err
		}
		if n >= maxPending {
			return errTooManyPending
		}
		return putJSON(tx, kindPending, p.ID, p)
	})
	return csrf, err
}

const approveAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // 32 symbols, no 0/O, 1/I

// approveCode returns a code like "K7QM-2XWD" for `mcpvec auth approve`.
func approveCode() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	for i := range b {
		b[i] = approveAlphabet[int(b[i])%len(approveAlphabet)]
	}
	return string(b[:4]) + "-" + string(b[4:]), nil
}

// normalizeApproveCode uppercases a typed code and restores its dash.
func normalizeApproveCode(code string) string {
	code = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(code))
	if len(code) != 8 {
		return code
	}
	return code[:4] + "-" + code[4:]
}

// redirectError sends an OAuth error back to the client's redirect URI.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirect, state, code, desc string) {
	s.log.Info("oauth: authorization refused", "error", code, "reason", desc)
	s.redirect(w, r, redirect, url.Values{"error": {code}, "error_description": {desc}}, state)
}

// redirect sends the browser to the redirect URI with params, state and iss
// (RFC 9207) added to its query.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, redirect string, params url.Values, state string) {
	u, err := url.Parse(redirect)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "The redirect_uri is malformed.")
		return
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.cfg.Issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) consentCookieName(id string) string { return "mcpvec_consent_" + id[:12] }

func (s *Server) setConsentCookie(w http.ResponseWriter, id, csrf string) {
	http.SetCookie(w, &http.Cookie{
		Name: s.consentCookieName(id), Value: csrf, Path: "/oauth/",
		MaxAge: int(s.cfg.ConsentTTL / time.Second), HttpOnly: true,
		Secure: s.issuer.Scheme == "https", SameSite: http.SameSiteLaxMode,
	})
}
