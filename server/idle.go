package server

import (
	"net/http"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Idle expiry of streamable HTTP sessions. mcp-go's own sweeper
// (WithSessionIdleTTL) counts a session as used only when its handlePost
// or GET stream touches it, and the fast tool-call path (fastcall.go)
// answers most requests without handlePost; so the session table keeps
// the time itself, on every request that validates a session (both
// paths) and while a GET stream is open, and ends idle sessions the way
// mcp-go's sweeper does: at the same interval (half the timeout, at least
// a second), through the session id manager and mcp-go's cleanup (an
// internal DELETE, see Server.endSession).

// startSweeper starts the goroutine that ends idle sessions; it runs for
// the life of the process, as mcp-go's does.
func (t *sessionTable) startSweeper() {
	go func() {
		tick := time.NewTicker(max(t.idle/2, time.Second))
		defer tick.Stop()
		for range tick.C {
			for _, id := range t.expired() {
				t.end(id)
			}
		}
	}()
}

// expired drops and returns the sessions idle for at least t.idle with no
// stream open.
func (t *sessionTable) expired() []string {
	now := t.stamp()
	var out []string
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, l := range t.live {
		if l.streams == 0 && now-l.last.Load() >= int64(t.idle) {
			out = append(out, id)
		}
	}
	for _, id := range out {
		t.dropLocked(id)
	}
	return out
}

// openStream notes a GET stream open on id, when id is live, and reports
// whether it was; closeStream must follow when it reports true.
func (t *sessionTable) openStream(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.live[id]
	if ok {
		l.streams++
		t.touch(l)
	}
	return ok
}

// closeStream notes the end of a stream openStream counted: the session's
// idle time starts now.
func (t *sessionTable) closeStream(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.live[id]; ok {
		l.streams--
		t.touch(l)
	}
}

// trackStream counts r's GET stream on its session while next serves it.
func (s *Server) trackStream(next http.Handler, w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(mcpserver.HeaderKeySessionID)
	if id != "" && s.sessions.openStream(id) {
		defer s.sessions.closeStream(id)
	}
	next.ServeHTTP(w, r)
}
