package web

import (
	"sync"

	"github.com/mcpvec/mcpvec/server"
)

// Activity keeps the most recent MCP tool calls in a bounded ring. Record
// and Recent are safe for concurrent use.
type Activity struct {
	mu    sync.Mutex
	calls []server.Call
	next  int
	full  bool
}

// NewActivity returns a ring keeping the last n calls (n < 1 means 200).
func NewActivity(n int) *Activity {
	if n < 1 {
		n = 200
	}
	return &Activity{calls: make([]server.Call, n)}
}

// Record adds c, dropping the oldest call when the ring is full. Its
// signature fits server.Options.Observe.
func (a *Activity) Record(c server.Call) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[a.next] = c
	a.next = (a.next + 1) % len(a.calls)
	a.full = a.full || a.next == 0
}

// Recent returns the recorded calls, newest first.
func (a *Activity) Recent() []server.Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.next
	if a.full {
		n = len(a.calls)
	}
	out := make([]server.Call, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, a.calls[(a.next-i+len(a.calls))%len(a.calls)])
	}
	return out
}
