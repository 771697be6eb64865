package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

const (
	cookieName = "mcpvec_session"
	sessionTTL = 12 * time.Hour
)

// maxSess caps signed-in sessions; only a right passphrase or token, or a
// sign-in at the OpenID provider, makes one, so no anonymous flood can
// fill the table. A variable for tests.
var maxSess = 10000

type sessionKey struct{}

// session is one browser's state; it does not change once made (signing
// in or out replaces it). An anonymous session is kept nowhere on the
// server: its cookie carries its own signature (see sessions). A signed-in
// session is the owner's, or a person's whom the OpenID provider signed in
// (whose rights Options.Policy decides on every request).
type session struct {
	id, csrf string
	owner    bool
	person   identity.Person
	expires  time.Time
}

func (s *session) isOwner() bool { return s.owner }

// signedIn reports whether s is the owner's or a person's.
func (s *session) signedIn() bool { return s.owner || !s.person.IsZero() }

func (s *session) validCSRF(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

func sessionOf(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	return s
}

// sessions knows the signed-in sessions; anonymous ones are stateless, a
// cookie "a.<issued>.<nonce>.<mac>" whose CSRF token is derived from it
// with the process's key, so a flood of cookie-less requests allocates
// nothing and cannot evict the session behind an open sign-in form. Safe
// for concurrent use.
type sessions struct {
	key []byte

	mu    sync.Mutex
	owner map[string]*session
	// used holds the states of completed provider sign-ins (oidcsignin.go).
	used map[string]time.Time
}

func newSessions() *sessions {
	return &sessions{key: []byte(randomToken()), owner: map[string]*session{}, used: map[string]time.Time{}}
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (ss *sessions) mac(parts ...string) string {
	m := hmac.New(sha256.New, ss.key)
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// get returns the request's session, or starts an anonymous one and sets
// its cookie.
func (ss *sessions) get(w http.ResponseWriter, r *http.Request) *session {
	now := time.Now()
	if c, err := r.Cookie(cookieName); err == nil {
		if s := ss.lookup(c.Value, now); s != nil {
			return s
		}
	}
	s := ss.anonymous(now)
	setCookie(w, r, s.id, sessionTTL)
	return s
}

// lookup finds a signed-in session or checks an anonymous cookie.
func (ss *sessions) lookup(id string, now time.Time) *session {
	if !strings.HasPrefix(id, "a.") {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if s, ok := ss.owner[id]; ok && now.Before(s.expires) {
			return s
		}
		return nil
	}
	f := strings.Split(id, ".")
	if len(f) != 4 || !hmac.Equal([]byte(f[3]), []byte(ss.mac("anon", f[1], f[2]))) {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(f[1])
	if err != nil || len(b) != 8 {
		return nil
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(b)), 0).Add(sessionTTL)
	if !now.Before(expires) {
		return nil
	}
	return &session{id: id, csrf: ss.mac("csrf", id), expires: expires}
}

// anonymous makes a new anonymous session; it is stored nowhere.
func (ss *sessions) anonymous(now time.Time) *session {
	b := binary.BigEndian.AppendUint64(nil, uint64(now.Unix()))
	issued, nonce := base64.RawURLEncoding.EncodeToString(b), randomToken()[:22]
	id := "a." + issued + "." + nonce + "." + ss.mac("anon", issued, nonce)
	return &session{id: id, csrf: ss.mac("csrf", id), expires: now.Add(sessionTTL)}
}

// rotate replaces s with a fresh owner session (owner), a person's (p
// not zero) or an anonymous one, so a session id fixed before sign-in is
// worthless after it.
func (ss *sessions) rotate(w http.ResponseWriter, r *http.Request, s *session, owner bool, p identity.Person) {
	now := time.Now()
	ss.mu.Lock()
	delete(ss.owner, s.id)
	ns := ss.anonymous(now)
	if owner || !p.IsZero() {
		ns = &session{id: randomToken(), csrf: randomToken(), owner: owner, person: p, expires: now.Add(sessionTTL)}
		if len(ss.owner) >= maxSess {
			ss.pruneLocked(now)
		}
		ss.owner[ns.id] = ns
	}
	ss.mu.Unlock()
	setCookie(w, r, ns.id, sessionTTL)
}

// pruneLocked drops expired sessions, then the one closest to expiring
// while the table is still full; ss.mu is held.
func (ss *sessions) pruneLocked(now time.Time) {
	var oldest *session
	for id, s := range ss.owner {
		if now.After(s.expires) {
			delete(ss.owner, id)
		} else if oldest == nil || s.expires.Before(oldest.expires) {
			oldest = s
		}
	}
	if len(ss.owner) >= maxSess && oldest != nil {
		delete(ss.owner, oldest.id)
	}
}

func setCookie(w http.ResponseWriter, r *http.Request, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: "/", MaxAge: int(ttl.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	})
}
