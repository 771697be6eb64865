package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// answer is what a client sees of a response.
type answer struct {
	status            int
	contentType, clen string
	body              string
}

// postRaw posts body to url with headers (Content-Type application/json
// unless given) and returns the whole answer.
func postRaw(ctx context.Context, tb testing.TB, url, body string, headers map[string]string) answer {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Length"), string(b)}
}

// initSession initializes a streamable HTTP session and returns its id.
func initSession(tb testing.TB, url string) string {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), "POST", url, strings.NewReader(initBody))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		tb.Fatalf("initialize: %s, no session", resp.Status)
	}
	postRaw(tb.Context(), tb, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id})
	return id
}

// TestFastCallMatchesMCPGo sends the same requests with the fast tool-call
// path on and off (then mcp-go answers all of them) and compares status,
// headers and bytes; the calls the fast path should take are counted.
func TestFastCallMatchesMCPGo(t *testing.T) {
	s := MustNew(t, bigResultLib(), Options{})
	url := MustServe(t, s) + "/mcp"
	sid := initSession(t, url)
	gone := initSession(t, url)
	postDelete(t, url, gone)
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
	}
	search := call("3", "search", `{"query":"impeller bolts"}`)
	v := "2025-06-18"
	cases := []struct {
		name, body, session, version, ctype string
		fast                                bool
	}{
		{"search", search, sid, v, "", true},
		{"search, big results", call("4", "search", `{"query":"bronze impeller"}`), sid, v, "", true},
		{"string id to escape", call(`"a<b>&\u2028c"`, "search", `{"query":"pump"}`), sid, v, "", true},
		{"float ids", call("1.5e3", "search", `{"query":"pump"}`), sid, v, "", true},
		{"big id", call("123456789012345678", "fetch", `{"id":"d1:1"}`), sid, v, "", true},
		{"fetch", call("5", "fetch", `{"id":"d1:1"}`), sid, v, "", true},
		{"fetch unknown id", call("6", "fetch", `{"id":"nope"}`), sid, v, "", true},
		{"empty query", call("7", "search", `{"query":""}`), sid, v, "", true},
		{"bad params: a number", call("8", "search", `{"query":5}`), sid, v, "", true},
		{"bad params: not an object", call("9", "search", `"impeller"`), sid, v, "", true},
		{"no protocol header", search, sid, "", "", true},
		{"json with charset", search, sid, v, "application/json; charset=utf-8", true},
		{"unknown tool", call("10", "nope", `{}`), sid, v, "", false},
		{"no params", `{"jsonrpc":"2.0","id":11,"method":"tools/call"}`, sid, v, "", false},
		{"unknown session", search, "mcpvec-nope", v, "", false},
		{"expired session", search, gone, v, "", false},
		{"no session", search, "", v, "", false},
		{"unsupported protocol version", search, sid, "1999-01-01", "", false},
		{"protocol 2026-07-28", search, sid, "2026-07-28", "", false},
		{"wrong content type", search, sid, v, "text/plain", false},
		{"not JSON", `{"jsonrpc":"2.0","id":12,`, sid, v, "", false},
		{"JSON-RPC 1.0", strings.Replace(search, `"2.0"`, `"1.0"`, 1), sid, v, "", false},
		{"null id", call("null", "search", `{"query":"pump"}`), sid, v, "", false},
		{"_meta", strings.Replace(search, `"params":{`, `"params":{"_meta":{"progressToken":1},`, 1), sid, v, "", false},
		{"a response", strings.Replace(search, `"method"`, `"result":{},"method"`, 1), sid, v, "", false},
	}
	for _, c := range cases {
		h := map[string]string{}
		if c.session != "" {
			h["Mcp-Session-Id"] = c.session
		}
		if c.version != "" {
			h["Mcp-Protocol-Version"] = c.version
		}
		if c.ctype != "" {
			h["Content-Type"] = c.ctype
		}
		s.fast.off.Store(true)
		want := postRaw(t.Context(), t, url, c.body, h)
		s.fast.off.Store(false)
		before := s.fast.served.Load()
		got := postRaw(t.Context(), t, url, c.body, h)
		if got != want {
			t.Errorf("%s:\n got %d %q %s %s\nwant %d %q %s %s", c.name, got.status, got.contentType, got.clen, got.body,
				want.status, want.contentType, want.clen, want.body)
		}
		if fast := s.fast.served.Load() > before; fast != c.fast {
			t.Errorf("%s: served by the fast path %v, want %v", c.name, fast, c.fast)
		}
	}
}

func postDelete(tb testing.TB, url, session string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), "DELETE", url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
}

// waitingLib's Search waits until its context ends (or 10 s pass) and
// reports the context's error on ended.
type waitingLib struct {
	*fakeLib
	entered chan struct{}
	ended   chan error
}

func (b *waitingLib) Search(ctx context.Context, _ string, _ library.SearchOptions) (*library.SearchResponse, error) {
	b.entered <- struct{}{}
	select {
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		b.ended <- nil
		return nil, errors.New("not cancelled")
	}
}

// TestFastCallCancellation: notifications/cancelled and a client that
// goes away both end a search in flight, on either path, with the same
// answer.
func TestFastCallCancellation(t *testing.T) {
	lib := &waitingLib{fakeLib: newFakeLib(), entered: make(chan struct{}, 1), ended: make(chan error, 1)}
	s := MustNew(t, lib, Options{})
	url := MustServe(t, s) + "/mcp"
	sid := initSession(t, url)
	h := map[string]string{"Mcp-Session-Id": sid}
	body := `{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"name":"search","arguments":{"query":"pump"}}}`
	var answers [2]answer
	for i, off := range []bool{true, false} {
		s.fast.off.Store(off)
		done := make(chan answer, 1)
		go func() { done <- postRaw(context.Background(), t, url, body, h) }()
		<-lib.entered
		postRaw(t.Context(), t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q1"}}`, h)
		if err := <-lib.ended; !errors.Is(err, context.Canceled) {
			t.Fatalf("fast path off %v: search ended with %v, want cancelled", off, err)
		}
		answers[i] = <-done
	}
	if answers[0] != answers[1] {
		t.Errorf("cancelled call: fast %+v, mcp-go %+v", answers[1], answers[0])
	}
	if s.fast.served.Load() != 1 {
		t.Errorf("fast calls %d, want 1", s.fast.served.Load())
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-lib.entered; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if err := <-lib.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("client gone: search ended with %v, want cancelled", err)
	}
}

// TestIdleExpiryCountsFastCalls: a session busy with tool calls only (the
// fast path) lives on, an idle one ends, and a session with a GET stream
// open lives on while it is open.
func TestIdleExpiryCountsFastCalls(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{SessionIdleTimeout: time.Second})
	url := MustServe(t, s) + "/mcp"
	idle, busy, streaming := initSession(t, url), initSession(t, url), initSession(t, url)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Mcp-Session-Id", streaming)
	req.Header.Set("Accept", "text/event-stream")
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	search := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"pump"}}}`
	for range 10 {
		time.Sleep(300 * time.Millisecond)
		if a := postRaw(t.Context(), t, url, search, map[string]string{"Mcp-Session-Id": busy}); a.status != 200 {
			t.Fatalf("busy session: %d %q", a.status, a.body)
		}
	}
	if s.fast.served.Load() != 10 {
		t.Fatalf("fast calls %d, want 10", s.fast.served.Load())
	}
	for _, c := range []struct {
		id   string
		want int
	}{{idle, http.StatusNotFound}, {streaming, http.StatusOK}} {
		if a := postRaw(t.Context(), t, url, search, map[string]string{"Mcp-Session-Id": c.id}); a.status != c.want {
			t.Errorf("session %s: %d, want %d", c.id, a.status, c.want)
		}
	}
}
