package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// errNoSession is what Validate returns for an id that is not live: mcp-go
// then answers 404, and the spec tells the client to initialize again.
var errNoSession = errors.New("unknown or expired session")

// sessionTable is the streamable HTTP session id manager: it knows the live
// sessions, so a request on an expired or evicted one gets 404, and it caps
// how many live at once. mcp-go's idle sweeper (WithSessionIdleTTL) ends
// idle sessions through Terminate; when the cap is reached, Generate evicts
// sessions through evict, which must end them in mcp-go too (see
// Server.evictSession). Eviction spares the sessions in use: it takes a
// session that sent nothing after initialize first, then one that sent
// only the "initialized" notification, then the others; within each, from
// the client holding the most sessions, least recently used first. So a
// flood of initializes evicts its own sessions, not a real client's (which
// sends "initialized" at once), even one idle since. A flood that also
// sends "initialized", from the same address as a client that has not
// made a call yet, can still evict that client's session. Safe for
// concurrent use.
type sessionTable struct {
	max   int
	evict func(id string)
	now   func() time.Time
	// idle, when positive, ends a session without requests or an open
	// stream for that long through end (see sweep); set before use.
	idle  time.Duration
	end   func(id string)
	sweep sync.Once

	// mu guards the maps; a request's Validate only reads them (RLock),
	// and a session's last use and count are atomic, so requests do not
	// queue behind each other here (nor behind one whose thread the host
	// has descheduled while it held the lock).
	mu      sync.RWMutex
	epoch   time.Time // what liveSession.last counts from
	live    map[string]*liveSession
	clients map[string]int // client → live sessions
}

// liveSession is what the table knows of one session.
type liveSession struct {
	client  string       // client.Key of the request that made it
	last    atomic.Int64 // last request, or when its last stream closed (sessionTable.stamp)
	uses    atomic.Int64 // requests after initialize
	streams int          // open GET streams
}

// tier ranks a session for eviction: 0 sent nothing after initialize, 1
// sent one request (a real client's "initialized" notification), 2 more.
func (l *liveSession) tier() int { return int(min(l.uses.Load(), 2)) }

// stamp is the time now as liveSession.last keeps it: nanoseconds since
// the table's epoch, on the monotonic clock.
func (t *sessionTable) stamp() int64 { return int64(t.now().Sub(t.epoch)) }

// touch notes a use of l now.
func (t *sessionTable) touch(l *liveSession) { l.last.Store(t.stamp()) }

var (
	_ mcpserver.SessionIdManager         = (*sessionTable)(nil)
	_ mcpserver.SessionIdManagerResolver = (*sessionTable)(nil)
)

func newSessionTable(max int, evict func(string)) *sessionTable {
	return &sessionTable{max: max, evict: evict, now: time.Now, epoch: time.Now(), live: make(map[string]*liveSession), clients: make(map[string]int)}
}

// ResolveSessionIdManager implements mcpserver.SessionIdManagerResolver:
// the manager for r generates sessions owned by r's client.
func (t *sessionTable) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	if r == nil {
		return t
	}
	return clientSessions{t: t, client: client.Key(r)}
}

// clientSessions is the session id manager for one request's client.
type clientSessions struct {
	t      *sessionTable
	client string
}

func (c clientSessions) Generate() string                  { return c.t.generate(c.client) }
func (c clientSessions) Validate(id string) (bool, error)  { return c.t.Validate(id) }
func (c clientSessions) Terminate(id string) (bool, error) { return c.t.Terminate(id) }

// Generate implements mcpserver.SessionIdManager for a client unknown.
func (t *sessionTable) Generate() string { return t.generate("") }

// generate returns a new unguessable id for client, evicting sessions
// beyond the cap first.
func (t *sessionTable) generate(client string) string {
	b := make([]byte, 18)
	rand.Read(b)
	id := "mcpvec-" + base64.RawURLEncoding.EncodeToString(b)
	var victims []string
	t.mu.Lock()
	for len(t.live) >= t.max {
		victim := t.victimLocked()
		t.dropLocked(victim)
		victims = append(victims, victim)
	}
	l := &liveSession{client: client}
	t.touch(l)
	t.live[id] = l
	t.clients[client]++
	t.mu.Unlock()
	if t.idle > 0 {
		t.sweep.Do(t.startSweeper)
	}
	for _, v := range victims {
		t.evict(v)
	}
	return id
}

// victimLocked returns the session to evict; t.mu is held and the table
// is not empty. A linear scan: it runs only when the cap is reached, and
// the cap is small.
func (t *sessionTable) victimLocked() string {
	var best string
	var bs *liveSession
	for id, l := range t.live {
		if bs == nil || t.before(l, bs) {
			best, bs = id, l
		}
	}
	return best
}

// before reports whether a is evicted before b: the lower tier, then the
// client with more sessions, then the least recently used.
func (t *sessionTable) before(a, b *liveSession) bool {
	if ta, tb := a.tier(), b.tier(); ta != tb {
		return ta < tb
	}
	if na, nb := t.clients[a.client], t.clients[b.client]; na != nb {
		return na > nb
	}
	return a.last.Load() < b.last.Load()
}

// dropLocked removes id; t.mu is held.
func (t *sessionTable) dropLocked(id string) {
	l, ok := t.live[id]
	if !ok {
		return
	}
	delete(t.live, id)
	if t.clients[l.client]--; t.clients[l.client] <= 0 {
		delete(t.clients, l.client)
	}
}

// Validate implements mcpserver.SessionIdManager: a live id is touched, any
// other is an error (404 to the client).
func (t *sessionTable) Validate(id string) (isTerminated bool, err error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	l, ok := t.live[id]
	if !ok {
		return false, errNoSession
	}
	t.touch(l)
	l.uses.Add(1)
	return false, nil
}

// isLive reports whether id is a live session, without touching it.
func (t *sessionTable) isLive(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.live[id]
	return ok
}

// Terminate implements mcpserver.SessionIdManager (DELETE, idle sweep).
func (t *sessionTable) Terminate(id string) (isNotAllowed bool, err error) {
	t.mu.Lock()
	t.dropLocked(id)
	t.mu.Unlock()
	return false, nil
}

// Len returns the number of live sessions.
func (t *sessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.live)
}

// endSession ends a streamable HTTP session in mcp-go exactly as a client's
// DELETE would (mcp-go offers no other public way to drop a session's
// state): an internal request that never touches the network.
func (s *Server) endSession(id string) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, "/mcp", nil)
	if err != nil {
		return
	}
	req.Header.Set(mcpserver.HeaderKeySessionID, id)
	s.http.ServeHTTP(discardWriter{h: http.Header{}}, req)
}

// evictSession ends a session the cap evicted (endSession) and says so
// once in the log.
func (s *Server) evictSession(id string) {
	s.endSession(id)
	if s.evicted.Add(1) == 1 {
		s.log.Warn("too many live MCP sessions: ending unused and least recently used ones (their clients will initialize again)",
			"max_sessions", s.opts.MaxSessions)
	}
}

// discardWriter is a ResponseWriter that drops everything.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}
