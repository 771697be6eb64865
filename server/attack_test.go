package server

import (
	"testing"
	"time"
)

// Tests for issue 35: hostile clients, second round.

// TestInitializeFloodSparesActiveSession: a flood of initializes used to
// evict the least recently used sessions, an active client's among them
// (30 of its 40 calls got 404; finding 8). Eviction now takes sessions
// that never made a call first.
func TestInitializeFloodSparesActiveSession(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{MaxSessions: 50})
	base := MustServe(t, s)
	_, h, _ := do(t, "POST", base+"/mcp", "", initBody, nil)
	sid := map[string]string{"Mcp-Session-Id": h.Get("Mcp-Session-Id")}
	do(t, "POST", base+"/mcp", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"d1:0"}}}`
	var failed, calls int
	start := time.Now()
	for i := range 4000 {
		if code, _, body := do(t, "POST", base+"/mcp", "", initBody, nil); code != 200 {
			t.Fatalf("initialize %d: %d %q", i, code, body)
		}
		if i%100 == 0 {
			calls++
			if code, _, _ := do(t, "POST", base+"/mcp", "", call, sid); code != 200 {
				failed++
			}
		}
		if time.Since(start) > time.Minute {
			break
		}
	}
	t.Logf("%d of %d calls of an active client failed during %d initializes (max sessions 50)", failed, calls, 4000)
	if failed > 0 {
		t.Errorf("%d of %d calls of an active client failed during an initialize flood, want none", failed, calls)
	}
	if n := s.sessions.Len(); n > 50 {
		t.Errorf("%d live sessions, want at most 50", n)
	}
}
