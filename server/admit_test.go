package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// waitFor polls cond for up to 5 s.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestAdmissionFIFO: searches beyond the turns wait in arrival order, a
// wait ends with its context, and past maxWait a search is refused.
func TestAdmissionFIFO(t *testing.T) {
	a := newAdmission(1, 3)
	if err := a.enter(t.Context()); err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			if a.enter(context.Background()) == nil {
				order <- i
				a.leave()
			}
		}()
		waitFor(t, "a waiter", func() bool { return a.waiting.Load() == int64(i+1) })
	}
	if err := a.enter(t.Context()); !errors.Is(err, errBusy) {
		t.Fatalf("a fourth waiter: %v, want errBusy", err)
	}
	a.leave()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("turn %d went to waiter %d", want, got)
		}
	}
	if err := a.enter(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := a.enter(ctx); !errors.Is(err, context.DeadlineExceeded) || a.waiting.Load() != 0 {
		t.Fatalf("a wait past its deadline: %v (%d waiting)", err, a.waiting.Load())
	}
}

// TestSearchesTakeTurns: over MCP, a second search does not reach the
// library while the first runs, and one beyond the queue gets a clear
// error result at once.
func TestSearchesTakeTurns(t *testing.T) {
	lib := &waitingLib{fakeLib: newFakeLib(), entered: make(chan struct{}, 4), ended: make(chan error, 4)}
	s := MustNew(t, lib, Options{})
	s.admit = newAdmission(1, 1)
	url := MustServe(t, s) + "/mcp"
	h := map[string]string{"Mcp-Session-Id": initSession(t, url)}
	search := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"pump"}}}`
	ctx1, cancel1 := context.WithCancel(t.Context())
	ctx2, cancel2 := context.WithCancel(t.Context())
	done := make(chan struct{}, 2)
	for _, ctx := range []context.Context{ctx1, ctx2} {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(search))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Session-Id", h["Mcp-Session-Id"])
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			done <- struct{}{}
		}()
	}
	<-lib.entered
	waitFor(t, "the second search to wait", func() bool { return s.admit.waiting.Load() == 1 })
	if a := postRaw(t.Context(), t, url, search, h); !strings.Contains(a.body, "busy") || !strings.Contains(a.body, `"isError":true`) {
		t.Errorf("a third search: %d %s, want a busy tool error", a.status, a.body)
	}
	select {
	case <-lib.entered:
		t.Fatal("two searches ran at once")
	case <-time.After(50 * time.Millisecond):
	}
	cancel1()
	<-lib.ended
	<-lib.entered // the second search's turn
	cancel2()
	<-lib.ended
	<-done
	<-done
}
