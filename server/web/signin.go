package web

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/internal/client"
	"github.com/mcpvec/mcpvec/server/oauth"
)

// limiter counts wrong sign-in guesses per client (client.Key) and for all
// clients together (the ceiling, for guesses spread over many addresses).
// It only ever refuses a guess at the passphrase: a right token is let in
// whatever the count (the token is no easier to guess here than on /mcp,
// which checks it on every request). Safe for concurrent use.
type limiter struct {
	perClient, ceiling int
	window             time.Duration

	mu    sync.Mutex
	fails map[string][]time.Time
	all   []time.Time
}

func newLimiter(perClient, ceiling int, window time.Duration) *limiter {
	return &limiter{perClient: perClient, ceiling: ceiling, window: window, fails: map[string][]time.Time{}}
}

// allow reports whether key may guess now.
func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	cut := time.Now().Add(-l.window)
	l.all = recent(l.all, cut)
	if f := recent(l.fails[key], cut); len(f) == 0 {
		delete(l.fails, key)
	} else {
		l.fails[key] = f
	}
	return len(l.fails[key]) < l.perClient && len(l.all) < l.ceiling
}

// fail counts a wrong guess by key. The table holds at most ceiling
// entries in a window, as every entry is a counted guess.
func (l *limiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.fails[key] = append(l.fails[key], now)
	l.all = append(l.all, now)
}

// recent drops the times before cut (ts is oldest first).
func recent(ts []time.Time, cut time.Time) []time.Time {
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	return ts[i:]
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signin", "Sign in", h.signinData(""))
}

func (h *Handler) signinData(msg string) map[string]any {
	provider := ""
	if h.opts.SignIn != nil {
		provider = cmp.Or(h.opts.SignInName, "your organisation")
	}
	return map[string]any{"Error": msg, "Passphrase": h.opts.CheckOwner != nil, "Token": h.opts.Token != "", "Provider": provider}
}

// signin checks the token, then the passphrase; wrong guesses count
// against the client's limit (and the OAuth server's own lockout).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	secret, key := r.PostFormValue("secret"), client.Key(r)
	if !h.tokenMatches(secret) {
		if !h.limiter.allow(key) {
			h.render(w, r, http.StatusTooManyRequests, "signin", "Sign in", h.signinData("Too many wrong attempts: wait a minute."))
			return
		}
		if err := h.checkPassphrase(r, secret); err != nil {
			h.limiter.fail(key)
			status, msg := http.StatusForbidden, "Wrong passphrase or token."
			var oe *oauth.ErrOwner
			if errors.As(err, &oe) && oe.Status != http.StatusForbidden {
				status, msg = oe.Status, oe.Msg
			}
			h.log.Warn("web: failed sign-in", "remote", r.RemoteAddr)
			h.render(w, r, status, "signin", "Sign in", h.signinData(msg))
			return
		}
	}
	h.sessions.rotate(w, r, sessionOf(r), true, identity.Person{})
	http.Redirect(w, r, h.opts.Base+"/", http.StatusSeeOther)
}

var errWrongSecret = errors.New("wrong passphrase or token")

// tokenMatches compares secret with the token in constant time.
func (h *Handler) tokenMatches(secret string) bool {
	if h.opts.Token == "" || secret == "" {
		return false
	}
	got, want := sha256.Sum256([]byte(secret)), sha256.Sum256([]byte(h.opts.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

func (h *Handler) checkPassphrase(r *http.Request, secret string) error {
	if h.opts.CheckOwner == nil || secret == "" {
		return errWrongSecret
	}
	return h.opts.CheckOwner(r, secret)
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	h.sessions.rotate(w, r, sessionOf(r), false, identity.Person{})
	http.Redirect(w, r, h.opts.Base+"/ui/signin", http.StatusSeeOther)
}
