package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/server/oauth"
)

const (
	cookieName = "mcpvec_session"
	sessionTTL = 12 * time.Hour
	maxSess    = 10000
)

type sessionKey struct{}

// session is one browser's state. owner is guarded by sessions.mu.
type session struct {
	id, csrf string
	owner    bool
	expires  time.Time
	mu       *sync.Mutex
}

func (s *session) isOwner() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner
}

func (s *session) validCSRF(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

func sessionOf(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	return s
}

// sessions is the in-memory session table, safe for concurrent use.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

func newSessions() *sessions { return &sessions{m: map[string]*session{}} }

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// get returns the request's session, or starts one and sets its cookie.
func (ss *sessions) get(w http.ResponseWriter, r *http.Request) *session {
	now := time.Now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if c, err := r.Cookie(cookieName); err == nil {
		if s, ok := ss.m[c.Value]; ok && now.Before(s.expires) {
			return s
		}
	}
	if len(ss.m) >= maxSess {
		ss.prune(now)
	}
	s := &session{id: randomToken(), csrf: randomToken(), expires: now.Add(sessionTTL), mu: &ss.mu}
	ss.m[s.id] = s
	setCookie(w, r, s.id, sessionTTL)
	return s
}

// prune drops expired sessions, then any anonymous ones if still full.
func (ss *sessions) prune(now time.Time) {
	for id, s := range ss.m {
		if now.After(s.expires) || len(ss.m) >= maxSess && !s.owner {
			delete(ss.m, id)
		}
	}
}

// rotate replaces s with a fresh owner (or anonymous) session, so a
// session id fixed before sign-in is worthless after it.
func (ss *sessions) rotate(w http.ResponseWriter, r *http.Request, s *session, owner bool) {
	ns := &session{id: randomToken(), csrf: randomToken(), owner: owner, expires: time.Now().Add(sessionTTL), mu: &ss.mu}
	ss.mu.Lock()
	delete(ss.m, s.id)
	ss.m[ns.id] = ns
	ss.mu.Unlock()
	setCookie(w, r, ns.id, sessionTTL)
}

func setCookie(w http.ResponseWriter, r *http.Request, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: "/", MaxAge: int(ttl.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	})
}

// limiter allows n sign-in attempts per window, for all clients together
// (a tunnel hides the client's address). Safe for concurrent use.
type limiter struct {
	mu     sync.Mutex
	n      int
	window time.Duration
	times  []time.Time
}

func newLimiter(n int, window time.Duration) *limiter { return &limiter{n: n, window: window} }

func (l *limiter) allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	cut := time.Now().Add(-l.window)
	kept := l.times[:0]
	for _, t := range l.times {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	l.times = kept
	if len(kept) >= l.n {
		return false
	}
	l.times = append(l.times, time.Now())
	return true
}

// owner protects a page: when exposed, a visitor without an owner session
// is sent to the sign-in page (GET) or refused (POST).
func (h *Handler) owner(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.opts.Exposed || sessionOf(r).isOwner() {
			next(w, r)
			return
		}
		if r.Method != http.MethodGet {
			http.Error(w, "forbidden: sign in first", http.StatusForbidden)
			return
		}
		http.Redirect(w, r, "/ui/signin", http.StatusSeeOther)
	}
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signin", "Sign in", h.signinData(""))
}

func (h *Handler) signinData(msg string) map[string]any {
	return map[string]any{"Error": msg, "Passphrase": h.opts.CheckOwner != nil, "Token": h.opts.Token != ""}
}

// signin checks the passphrase or token; wrong attempts count against the
// limiter (and the OAuth server's own lockout).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	if !h.limiter.allow() {
		h.render(w, r, http.StatusTooManyRequests, "signin", "Sign in", h.signinData("Too many attempts: wait a minute."))
		return
	}
	if err := h.checkSecret(r, r.PostFormValue("secret")); err != nil {
		status, msg := http.StatusForbidden, "Wrong passphrase or token."
		var oe *oauth.ErrOwner
		if errors.As(err, &oe) && oe.Status != http.StatusForbidden {
			status, msg = oe.Status, oe.Msg
		}
		h.log.Warn("web: failed sign-in", "remote", r.RemoteAddr)
		h.render(w, r, status, "signin", "Sign in", h.signinData(msg))
		return
	}
	h.sessions.rotate(w, r, sessionOf(r), true)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

var errWrongSecret = errors.New("wrong passphrase or token")

func (h *Handler) checkSecret(r *http.Request, secret string) error {
	if secret == "" {
		return errWrongSecret
	}
	if h.opts.Token != "" {
		got, want := sha256.Sum256([]byte(secret)), sha256.Sum256([]byte(h.opts.Token))
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
			return nil
		}
	}
	if h.opts.CheckOwner != nil {
		return h.opts.CheckOwner(r, secret)
	}
	return errWrongSecret
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	h.sessions.rotate(w, r, sessionOf(r), false)
	http.Redirect(w, r, "/ui/signin", http.StatusSeeOther)
}
