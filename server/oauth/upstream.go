package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpvec/mcpvec/server/identity"
)

// Upstream is an OpenID provider people sign in at: when Config.Upstream is
// set, the authorization endpoint sends the person there, and only a person
// it names may consent. *oidc.Provider satisfies it. Implementations must
// be safe for concurrent use.
type Upstream interface {
	// AuthURL is where to send the browser, coming back to redirectURI
	// with state; nonce and verifier bind the answer to this sign-in.
	AuthURL(state, nonce, verifier, redirectURI string) string
	// Exchange redeems the code the provider sent back and returns the
	// person its ID token names, or why it refused them.
	Exchange(ctx context.Context, code, verifier, nonce, redirectURI string) (identity.Person, error)
}

// pathCallback is where the upstream provider sends the browser back; its
// full URL (issuer + pathCallback) is the redirect URI to register there.
const pathCallback = "/oauth/callback"

// CallbackURL returns the redirect URI to register at the upstream
// provider.
func (s *Server) CallbackURL() string { return s.cfg.Issuer + pathCallback }

// upstreamSignIn is what a pending request keeps of its sign-in at the
// upstream provider until the browser comes back; then it is cleared, so a
// state works once.
type upstreamSignIn struct {
	Nonce    string `json:"nonce"`
	Verifier string `json:"verifier"`
}

// errReplay means the provider's answer names a sign-in that is unknown,
// expired, already answered, or started in another browser.
var errReplay = errors.New("upstream sign-in unknown, already answered or from another browser")

// beginUpstream gives p a fresh nonce and PKCE verifier for the provider.
func beginUpstream(p *pending) error {
	nonce, err := randomToken("")
	if err != nil {
		return err
	}
	verifier, err := randomToken("")
	if err != nil {
		return err
	}
	p.Upstream = &upstreamSignIn{Nonce: nonce, Verifier: verifier}
	return nil
}

// sendUpstream sends the browser to the provider; the state is the pending
// request's id, whose consent cookie the browser now holds.
func (s *Server) sendUpstream(w http.ResponseWriter, r *http.Request, p *pending) {
	s.log.Info("oauth: sign-in sent to the identity provider", "client", p.ClientID)
	u := s.cfg.Upstream.AuthURL(p.ID, p.Upstream.Nonce, p.Upstream.Verifier, s.CallbackURL())
	http.Redirect(w, r, u, http.StatusFound)
}

// serveCallback takes the provider's answer: it checks the state against
// the pending request and this browser's consent cookie (once only), has
// the ID token checked, asks Config.Admit, and shows the consent page
// naming the person.
func (s *Server) serveCallback(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Upstream == nil {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	p, up, csrf, err := s.takeUpstream(r, q.Get("state"))
	if err != nil {
		s.log.Warn("oauth: upstream answer refused", "remote", s.remoteHost(r), "err", err)
		s.errorPage(w, http.StatusForbidden, "This sign-in is not valid (expired, already used, or not from this browser). Start the sign-in again from your application.")
		return
	}
	if e := q.Get("error"); e != "" {
		s.deletePending(p.ID)
		s.redirectError(w, r, p.RedirectURI, p.State, "access_denied", "the identity provider refused the sign-in: "+e)
		return
	}
	person, err := s.cfg.Upstream.Exchange(r.Context(), q.Get("code"), up.Verifier, up.Nonce, s.CallbackURL())
	msg := "The identity provider's answer could not be verified. Start the sign-in again from your application."
	if err == nil {
		err = s.admitPerson(person, p.Resource)
		msg = fmt.Sprintf("Sign-in refused: %v", err)
	}
	if err != nil {
		s.deletePending(p.ID)
		s.log.Warn("oauth: sign-in refused", "client", p.ClientID, "person", person.Label(), "resource", p.Resource, "err", err)
		s.errorPage(w, http.StatusForbidden, msg)
		return
	}
	p.Person = &person
	if err := s.update(func(tx Tx) error { return putJSON(tx, kindPending, p.ID, p) }); err != nil {
		s.log.Error("oauth: save signed-in person", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "The server could not save the sign-in.")
		return
	}
	s.renderConsent(w, http.StatusOK, p, csrf, "")
}

// takeUpstream finds the pending request named by state, checks this
// browser's consent cookie against it, and takes its upstream sign-in out,
// in one transaction, so the same answer is never taken twice. It returns
// the request, the taken sign-in and the CSRF token; errors wrap errReplay
// or are the Store's.
func (s *Server) takeUpstream(r *http.Request, state string) (*pending, *upstreamSignIn, string, error) {
	if len(state) < 12 {
		return nil, nil, "", fmt.Errorf("%w: no state", errReplay)
	}
	ck, err := r.Cookie(s.consentCookieName(state))
	if err != nil {
		return nil, nil, "", fmt.Errorf("%w: no consent cookie", errReplay)
	}
	var p pending
	var up *upstreamSignIn
	err = s.update(func(tx Tx) error {
		found, err := getJSON(tx, kindPending, state, &p)
		switch {
		case err != nil:
			return err
		case !found || s.now().After(p.Expires) || p.Upstream == nil:
			return fmt.Errorf("%w: no sign-in waits with that state", errReplay)
		case subtle.ConstantTimeCompare([]byte(hashToken(ck.Value)), []byte(p.CSRFHash)) != 1:
			return fmt.Errorf("%w: the consent cookie does not match", errReplay)
		}
		up, p.Upstream = p.Upstream, nil
		return putJSON(tx, kindPending, p.ID, &p)
	})
	if err != nil {
		return nil, nil, "", err
	}
	return &p, up, ck.Value, nil
}

// admitPerson asks Config.Admit whether p may be granted resource.
func (s *Server) admitPerson(p identity.Person, resource string) error {
	if s.cfg.Admit == nil {
		return nil
	}
	return s.cfg.Admit(p, resource)
}

// checkApprover checks who approves a consent form: with an upstream
// provider, the person it signed in (the form carries no passphrase);
// otherwise the owner, by passphrase. It returns "" when approval may go
// on, else a message for the page and its status.
func (s *Server) checkApprover(r *http.Request, p *pending) (string, int) {
	if s.cfg.Upstream == nil {
		return s.checkOwner(r, p.ClientID, r.PostForm.Get("passphrase"))
	}
	if p.Person == nil {
		return "Sign in through your identity provider first: start again from your application.", http.StatusForbidden
	}
	return "", 0
}

// admitGrantee asks Config.Admit about the person of a code or grant (nil
// for the owner, who is always admitted) at the token endpoint.
func (s *Server) admitGrantee(p *identity.Person, resource string) *tokenError {
	if p == nil {
		return nil
	}
	if err := s.admitPerson(*p, resource); err != nil {
		return grantError(p.Label() + " may no longer use " + resource + ": " + err.Error())
	}
	return nil
}
