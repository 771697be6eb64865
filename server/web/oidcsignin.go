package web

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

const (
	// signinCookie binds a sign-in at the provider to the browser that
	// started it. SameSite=Lax, not Strict: the provider's redirect back
	// is a cross-site navigation, on which a Strict cookie is not sent.
	signinCookie = "mcpvec_signin"
	// signinTTL bounds the time from "Sign in with …" to the callback.
	signinTTL = 10 * time.Minute
)

// signinStart sends the browser to the provider: a fresh binding cookie,
// and a state signed with it (and carrying the library to come back to),
// from which the nonce and the PKCE verifier are derived, so nothing is
// kept on the server until a sign-in succeeds.
func (h *Handler) signinStart(w http.ResponseWriter, r *http.Request) {
	if h.opts.SignIn == nil {
		http.NotFound(w, r)
		return
	}
	bind := randomToken()
	state := h.sessions.newState(bind, h.opts.Base, time.Now())
	http.SetCookie(w, &http.Cookie{
		Name: signinCookie, Value: bind, Path: "/", MaxAge: int(signinTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure(r),
	})
	nonce, verifier := h.sessions.mac("nonce", bind, state), h.sessions.mac("pkce", bind, state)
	http.Redirect(w, r, h.opts.SignIn.AuthURL(state, nonce, verifier, h.redirectURI(r)), http.StatusSeeOther)
}

// signinCallback finishes a sign-in: the state must be signed with this
// browser's binding cookie, fresh and not used before; the provider's
// code is redeemed for the person (the nonce and verifier checked); a
// person who may read no library here gets no session. The answer sends
// the browser on with a page of its own (a meta refresh), as the session
// cookie (SameSite=Strict) would not be sent on a redirect that a
// cross-site navigation started.
func (h *Handler) signinCallback(w http.ResponseWriter, r *http.Request) {
	if h.opts.SignIn == nil {
		http.NotFound(w, r)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: signinCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure(r)})
	q := r.URL.Query()
	c, err := r.Cookie(signinCookie)
	if err != nil {
		h.signinFailed(w, r, http.StatusBadRequest, "no sign-in was started in this browser", "This sign-in was not started in this browser, or took longer than 10 minutes. Sign in again.")
		return
	}
	state := q.Get("state")
	base, ok := h.sessions.checkState(c.Value, state, time.Now())
	switch {
	case !ok:
		h.signinFailed(w, r, http.StatusForbidden, "state not of this browser or expired", "This sign-in was not started in this browser, or took longer than 10 minutes. Sign in again.")
		return
	case q.Get("error") != "":
		h.signinFailed(w, r, http.StatusForbidden, "provider: "+q.Get("error"), "The sign-in service refused: "+q.Get("error")+".")
		return
	case h.sessions.stateUsed(state):
		h.signinFailed(w, r, http.StatusForbidden, "state replayed", "This sign-in was already used. Sign in again.")
		return
	}
	p, err := h.opts.SignIn.Exchange(r.Context(), q.Get("code"), h.sessions.mac("pkce", c.Value, state), h.sessions.mac("nonce", c.Value, state), h.redirectURI(r))
	if err != nil {
		h.signinFailed(w, r, http.StatusForbidden, err.Error(), "The sign-in could not be checked. Sign in again.")
		return
	}
	h.sessions.useState(state, time.Now())
	to, ok := h.landing(p, base)
	if !ok {
		h.log.Warn("web: sign-in of a person without access", "user", p.Label())
		h.message(w, r, http.StatusForbidden, "No access", "You are signed in as "+p.Label()+", who may not see any library on this server. Ask its owner for access.")
		return
	}
	h.log.Info("web: signed in", "user", p.Label())
	h.sessions.rotate(w, r, sessionOf(r), false, p)
	h.render(w, r, http.StatusOK, "message", "Signed in", messageData{Heading: "Signed in", Text: "You are signed in as " + p.Label() + ".", Refresh: to + "/"})
}

func (h *Handler) signinFailed(w http.ResponseWriter, r *http.Request, status int, why, text string) {
	h.log.Warn("web: failed provider sign-in", "remote", r.RemoteAddr, "why", why)
	h.message(w, r, status, "Sign-in failed", text)
}

// landing is where p goes after signing in: the library the sign-in
// started from when p may read it, else the first one p may read.
func (h *Handler) landing(p identity.Person, from string) (string, bool) {
	libs := h.opts.Libraries
	if len(libs) < 2 {
		libs = []LibraryLink{{Name: h.opts.Name, Base: h.opts.Base}}
	}
	first, found := "", false
	for _, l := range libs {
		if h.opts.Policy == nil || !h.opts.Policy.Allows(p, l.Name, identity.Read) {
			continue
		}
		if l.Base == from {
			return l.Base, true
		}
		if !found {
			first, found = l.Base, true
		}
	}
	return first, found
}

// redirectURI is PublicURL (else the request's origin) plus CallbackPath.
func (h *Handler) redirectURI(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return strings.TrimRight(h.opts.PublicURL, "/") + CallbackPath
	}
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host + CallbackPath
}

func secure(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

// newState is "<issued>.<random>.<base>.<mac>", signed with the binding
// cookie's value bind, base the library's path to come back to.
func (ss *sessions) newState(bind, base string, now time.Time) string {
	issued := base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint64(nil, uint64(now.Unix())))
	rnd, b := randomToken()[:22], base64.RawURLEncoding.EncodeToString([]byte(base))
	return issued + "." + rnd + "." + b + "." + ss.mac("state", bind, issued, rnd, b)
}

// checkState checks that state was made by newState with bind less than
// signinTTL ago, and returns its base.
func (ss *sessions) checkState(bind, state string, now time.Time) (string, bool) {
	f := strings.Split(state, ".")
	if len(f) != 4 || !hmac.Equal([]byte(f[3]), []byte(ss.mac("state", bind, f[0], f[1], f[2]))) {
		return "", false
	}
	t, err := base64.RawURLEncoding.DecodeString(f[0])
	base, err2 := base64.RawURLEncoding.DecodeString(f[2])
	if err != nil || err2 != nil || len(t) != 8 {
		return "", false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(t)), 0)
	if now.Sub(issued) > signinTTL || issued.After(now.Add(time.Minute)) {
		return "", false
	}
	return string(base), true
}

// stateUsed reports whether a sign-in already used state.
func (ss *sessions) stateUsed(state string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.used[state]
	return ok
}

// useState records state as used until it expires. Only a sign-in the
// provider completed records one, so the table grows with real sign-ins;
// past maxSess it drops the expired, then the oldest.
func (ss *sessions) useState(state string, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.used) >= maxSess {
		var oldest string
		for s, t := range ss.used {
			if now.Sub(t) > signinTTL {
				delete(ss.used, s)
			} else if oldest == "" || t.Before(ss.used[oldest]) {
				oldest = s
			}
		}
		if len(ss.used) >= maxSess {
			delete(ss.used, oldest)
		}
	}
	ss.used[state] = now
}
