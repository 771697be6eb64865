package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// errNoSession is what Validate returns for an id that is not live: mcp-go
// then answers 404, and the spec tells the client to initialize again.
var errNoSession = errors.New("unknown or expired session")

// sessionTable is the streamable HTTP session id manager: it knows the live
// sessions, so a request on an expired or evicted one gets 404, and it caps
// how many live at once. mcp-go's idle sweeper (WithSessionIdleTTL) ends
// idle sessions through Terminate; when the cap is reached, Generate evicts
// the least recently used session through evict, which must end it in
// mcp-go too (see Server.evictSession). Safe for concurrent use.
type sessionTable struct {
	max   int
	evict func(id string)
	now   func() time.Time

	mu   sync.Mutex
	live map[string]time.Time // id → last request
}

var _ mcpserver.SessionIdManager = (*sessionTable)(nil)

func newSessionTable(max int, evict func(string)) *sessionTable {
	return &sessionTable{max: max, evict: evict, now: time.Now, live: make(map[string]time.Time)}
}

// Generate implements mcpserver.SessionIdManager: a new unguessable id,
// evicting the least recently used sessions beyond the cap first.
func (t *sessionTable) Generate() string {
	b := make([]byte, 18)
	rand.Read(b)
	id := "mcpvec-" + base64.RawURLEncoding.EncodeToString(b)
	var victims []string
	t.mu.Lock()
	for len(t.live) >= t.max {
		victim := t.oldestLocked()
		delete(t.live, victim)
		victims = append(victims, victim)
	}
	t.live[id] = t.now()
	t.mu.Unlock()
	for _, v := range victims {
		t.evict(v)
	}
	return id
}

// oldestLocked returns the least recently used id; t.mu is held and the
// table is not empty. A linear scan: it runs only when the cap is reached,
// and the cap is small.
func (t *sessionTable) oldestLocked() string {
	var oldest string
	var at time.Time
	for id, last := range t.live {
		if oldest == "" || last.Before(at) {
			oldest, at = id, last
		}
	}
	return oldest
}

// Validate implements mcpserver.SessionIdManager: a live id is touched, any
// other is an error (404 to the client).
func (t *sessionTable) Validate(id string) (isTerminated bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.live[id]; !ok {
		return false, errNoSession
	}
	t.live[id] = t.now()
	return false, nil
}

// Terminate implements mcpserver.SessionIdManager (DELETE, idle sweep).
func (t *sessionTable) Terminate(id string) (isNotAllowed bool, err error) {
	t.mu.Lock()
	delete(t.live, id)
	t.mu.Unlock()
	return false, nil
}

// Len returns the number of live sessions.
func (t *sessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.live)
}

// evictSession ends a streamable HTTP session in mcp-go exactly as a client's
// DELETE would (mcp-go offers no other public way to drop a session's
// state): an internal request that never touches the network.
func (s *Server) evictSession(id string) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, "/mcp", nil)
	if err != nil {
		return
	}
	req.Header.Set(mcpserver.HeaderKeySessionID, id)
	s.http.ServeHTTP(discardWriter{h: http.Header{}}, req)
	if s.evicted.Add(1) == 1 {
		s.log.Warn("too many live MCP sessions: ending the least recently used ones (their clients will initialize again)",
			"max_sessions", s.opts.MaxSessions)
	}
}

// discardWriter is a ResponseWriter that drops everything.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}
