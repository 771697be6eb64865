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

// Limits on the sign-ins waiting for consent. Anyone who can reach the
// server can start one, and each is a write, so they are capped; but a cap
// that refuses would let a stranger lock the owner out. So they are counted
// per client (network address and client id): a client's newest request
// replaces its oldest beyond maxPendingPerClient, and beyond maxPending in
// all, the oldest request of the client holding the most gives way. Only
// while every client holds a single one do they grow past maxPending, up to
// maxPendingHard, where the oldest gives way. No request is refused, and
// one the owner approved on the machine (`mcpvec auth approve`) never
// gives way.
const (
	maxPendingPerClient = 3
	maxPending          = 50
	maxPendingHard      = 200
)

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
		Challenge: q.Get("code_challenge"), Resource: resource, From: s.cfg.ClientAddr(r)}
	csrf, err := s.savePending(p)
	if err != nil {
		s.log.Error("oauth: save consent request", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "The server could not save the request.")
		return
	}
	s.setConsentCookie(w, p.ID, csrf)
	if s.cfg.Upstream != nil {
		s.sendUpstream(w, r, p)
		return
	}
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
// approval code (and upstream sign-in, with an upstream provider); it
// returns the CSRF token.
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
	if s.cfg.Upstream != nil {
		if err := beginUpstream(p); err != nil {
			return "", err
		}
	}
	p.ID, p.CSRFHash, p.Expires = id, hashToken(csrf), s.now().Add(s.cfg.ConsentTTL)
	err = s.update(func(tx Tx) error {
		if err := sweep(tx, s.now()); err != nil {
			return err
		}
		if err := admit(tx, p); err != nil {
			return err
		}
		return putJSON(tx, kindPending, p.ID, p)
	})
	return csrf, err
}

// admit makes room for p among the waiting sign-ins, as the limits above
// say, by deleting at most one other.
func admit(tx Tx, p *pending) error {
	groups := map[string][]pending{} // client → its unapproved requests
	total := 0
	err := tx.ForEach(kindPending, func(_ string, b []byte) error {
		total++
		var q pending
		if decodeJSON(b, &q) == nil && !q.Approved {
			groups[q.client()] = append(groups[q.client()], q)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if own := groups[p.client()]; len(own) >= maxPendingPerClient {
		return tx.Delete(kindPending, oldest(own).ID)
	}
	var victim []pending
	for _, g := range groups {
		if len(g) > len(victim) || (len(g) == len(victim) && oldest(g).Expires.Before(oldest(victim).Expires)) {
			victim = g
		}
	}
	if total < maxPending || victim == nil || (len(victim) == 1 && total < maxPendingHard) {
		return nil
	}
	return tx.Delete(kindPending, oldest(victim).ID)
}

// oldest returns the request of ps that expires first (all live equally
// long, so the oldest).
func oldest(ps []pending) pending {
	o := ps[0]
	for _, p := range ps[1:] {
		if p.Expires.Before(o.Expires) {
			o = p
		}
	}
	return o
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
