package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// Tests for issue 15: bounded memory and time per client.

func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestAbandonedSessionsAreBounded: every initialize used to keep a session
// (about 13 KB) until the client sent DELETE, which most never do (finding 1).
func TestAbandonedSessionsAreBounded(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{MaxSessions: 20})
	base := MustServe(t, s)
	before := heapAlloc()
	var first, last string
	for i := range 1500 {
		code, h, body := do(t, "POST", base+"/mcp", "", initBody, nil)
		if code != 200 || h.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize %d: %d %q", i, code, body)
		}
		if first == "" {
			first = h.Get("Mcp-Session-Id")
		}
		last = h.Get("Mcp-Session-Id")
	}
	if grown := heapAlloc() - before; grown > 8<<20 {
		t.Errorf("1500 abandoned sessions grew the heap by %d KB, want under 8 MB", grown>>10)
	}
	if n := s.sessions.Len(); n > 20 {
		t.Errorf("%d live sessions, want at most 20", n)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if code, _, _ := do(t, "POST", base+"/mcp", "", list, map[string]string{"Mcp-Session-Id": first}); code != http.StatusNotFound {
		t.Errorf("evicted session: %d, want 404 (the client then initializes again)", code)
	}
	if code, _, body := do(t, "POST", base+"/mcp", "", list, map[string]string{"Mcp-Session-Id": last}); code != 200 {
		t.Errorf("newest session: %d %q, want 200", code, body)
	}
}

// TestIdleSessionsExpire: an idle session ends, a busy one lives on.
func TestIdleSessionsExpire(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{SessionIdleTimeout: time.Second})
	base := MustServe(t, s)
	_, h, _ := do(t, "POST", base+"/mcp", "", initBody, nil)
	idle := h.Get("Mcp-Session-Id")
	_, h, _ = do(t, "POST", base+"/mcp", "", initBody, nil)
	busy := h.Get("Mcp-Session-Id")
	ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	for range 10 {
		time.Sleep(300 * time.Millisecond)
		if code, _, body := do(t, "POST", base+"/mcp", "", ping, map[string]string{"Mcp-Session-Id": busy}); code != 200 {
			t.Fatalf("busy session: %d %q", code, body)
		}
	}
	if code, _, _ := do(t, "POST", base+"/mcp", "", ping, map[string]string{"Mcp-Session-Id": idle}); code != http.StatusNotFound {
		t.Errorf("session idle for 3 s with a 1 s timeout: %d, want 404", code)
	}
}

// TestDocLinkStreamsRanges: /docs used to copy the whole original into memory
// per request and ignored Range (finding 2).
func TestDocLinkStreamsRanges(t *testing.T) {
	orig := bytes.Repeat([]byte("0123456789"), 100000)
	lib := MustRealLibrary(t, hashEmbedder{Dims: 16}, []testDoc{{id: "big", title: "big.pdf", path: "/lib/big.pdf",
		mediaType: "application/pdf", original: orig, passages: []string{"a big file"}}})
	base := MustServe(t, MustNew(t, realLib{lib}, Options{}))
	url := base + "/docs/big/" + signatureFor(testLinkKey, "big")
	code, h, body := do(t, "GET", url, "", "", map[string]string{"Range": "bytes=500000-500009"})
	if code != http.StatusPartialContent || body != string(orig[500000:500010]) || h.Get("Content-Range") != "bytes 500000-500009/1000000" {
		t.Fatalf("range: %d %.40q… %q", code, body, h.Get("Content-Range"))
	}
	code, h, _ = do(t, "HEAD", url, "", "", nil)
	if code != 200 || h.Get("Content-Length") != "1000000" || h.Get("Accept-Ranges") != "bytes" || h.Get("ETag") == "" {
		t.Fatalf("HEAD: %d %v", code, h)
	}
	if code, _, _ := do(t, "GET", url, "", "", map[string]string{"If-None-Match": h.Get("ETag")}); code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", code)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got, err := io.ReadAll(resp.Body); err != nil || !bytes.Equal(got, orig) {
		t.Errorf("full download: %d bytes, %v", len(got), err)
	}
}

// bigResultLib answers every search with ten passages of 2000 characters.
func bigResultLib() *fakeLib {
	f := newFakeLib()
	var pages []string
	for i := range 10 {
		pages = append(pages, fmt.Sprintf("impeller %d %s", i, strings.Repeat("bronze impeller ", 125)))
	}
	f.docs = append(f.docs, fakeDoc{id: "d3", name: "big.pdf", mediaType: "application/pdf", data: []byte("%PDF"), pages: pages})
	return f
}

// TestUnreadSSEStreamIsCut: a legacy SSE client that never reads its stream
// used to make the server hold every answer (finding 3).
func TestUnreadSSEStreamIsCut(t *testing.T) {
	s := MustNew(t, bigResultLib(), Options{MaxSSEPending: 8, WriteTimeout: 300 * time.Millisecond})
	base := MustServe(t, s)
	tr := &http.Transport{ReadBufferSize: 1024}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReaderSize(resp.Body, 16)
	line, err := events.ReadString('\n')
	for err == nil && !strings.HasPrefix(line, "data: ") {
		line, err = events.ReadString('\n')
	}
	endpoint := strings.TrimSpace(strings.TrimPrefix(line, "data: "))
	goroutines := runtime.NumGoroutine()
	var refused int
	for i := range 400 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"impeller"}}}`, i+10)
		if i == 0 {
			body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
		}
		if code, _, _ := do(t, "POST", base+endpoint, "", body, nil); code != http.StatusAccepted {
			refused++
		}
	}
	time.Sleep(500 * time.Millisecond)
	if refused == 0 {
		t.Error("400 calls on a stream nobody reads were all accepted")
	}
	if n := runtime.NumGoroutine() - goroutines; n > 40 {
		t.Errorf("%d goroutines more than before the calls, want a bounded few", n)
	}
}

// TestSlowBodyIsCut: a body sent a byte at a time used to hold its
// connection forever (finding 9); streams outlive the body deadline.
func TestSlowBodyIsCut(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{BodyTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond})
	base := MustServe(t, s)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body within 5 s: %v", err)
	}
	if code := rpcErrorCode(t, resp); resp.StatusCode != http.StatusRequestTimeout || code != mcp.INVALID_REQUEST {
		t.Errorf("stalled body: %d, JSON-RPC code %d; want 408, %d", resp.StatusCode, code, mcp.INVALID_REQUEST)
	}
	// Streams idle for longer than both deadlines still work.
	c, _ := MustClient(t, s, sse, base+"/sse", nil, "")
	//lint:ignore SA1019 the legacy GET stream is what deployed clients still open
	tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	listening := clientOn(t, tr, "")
	time.Sleep(800 * time.Millisecond)
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "d1:0"}), new(map[string]any))
	decodeResult(t, mcptest.CallTool(t, listening, "fetch", map[string]any{"id": "d1:0"}), new(map[string]any))
}

func rpcErrorCode(tb testing.TB, resp *http.Response) int {
	tb.Helper()
	defer resp.Body.Close()
	var e mcp.JSONRPCError
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		tb.Fatalf("status %d, body is not a JSON-RPC error: %v", resp.StatusCode, err)
	}
	return e.Error.Code
}

// TestClearJSONRPCErrors: batches and oversized chunked bodies used to be
// reported as parse errors, and wrongly typed arguments as an empty query
// (finding 9).
func TestClearJSONRPCErrors(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{MaxBodyBytes: 4096})
	base := MustServe(t, s)
	post := func(body io.Reader) *http.Response {
		req, _ := http.NewRequest("POST", base+"/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(strings.NewReader("[" + initBody + "]"))
	if code := rpcErrorCode(t, resp); resp.StatusCode != 400 || code != mcp.INVALID_REQUEST {
		t.Errorf("batch: %d, code %d; want 400, %d", resp.StatusCode, code, mcp.INVALID_REQUEST)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8192) + `"}}`
	resp = post(io.MultiReader(strings.NewReader(big))) // unknown length: sent chunked
	if code := rpcErrorCode(t, resp); resp.StatusCode != http.StatusRequestEntityTooLarge || code != mcp.INVALID_REQUEST {
		t.Errorf("oversized chunked body: %d, code %d; want 413, %d", resp.StatusCode, code, mcp.INVALID_REQUEST)
	}
	for _, q := range []string{"?sessionId=nope", ""} {
		code, _, body := do(t, "POST", base+"/message"+q, "", initBody, nil)
		if code != http.StatusNotFound || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "open the SSE stream again") {
			t.Errorf("message to session %q: %d %s; want 404 and -32600", q, code, body)
		}
	}
	c, _ := MustClient(t, s, streamable, base+"/mcp", nil, "")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": 5}, `"query" must be a string, not a number`},
		{"fetch", map[string]any{"id": []any{"d1:0"}}, `"id" must be a string, not an array`},
		{"search", map[string]any{"query": "   "}, "The query is empty"},
	} {
		if msg := errorText(t, mcptest.CallTool(t, c, tc.tool, tc.args)); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %q, want it to say %q", tc.tool, tc.args, msg, tc.want)
		}
	}
}

// pathLib is fakeLib with absolute local paths in fetch metadata, as the
// real library reports them.
type pathLib struct{ *fakeLib }

func (p pathLib) Fetch(ctx context.Context, id string, fo library.FetchOptions) (*library.FetchResponse, error) {
	r, err := p.fakeLib.Fetch(ctx, id, fo)
	if r != nil {
		r.Metadata["source"] = "/home/owner/private/" + r.Metadata["source"].(string)
	}
	return r, err
}

// TestFetchHidesLocalPaths: fetch used to hand remote clients the absolute
// path of the file on the owner's disk (finding 9).
func TestFetchHidesLocalPaths(t *testing.T) {
	for _, show := range []bool{false, true} {
		s := MustNew(t, pathLib{newFakeLib()}, Options{ShowPaths: show})
		c, _ := MustClient(t, s, streamable, MustServe(t, s)+"/mcp", nil, "")
		var fr library.FetchResponse
		decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "d1:0"}), &fr)
		want := "manual.pdf"
		if show {
			want = "/home/owner/private/manual.pdf"
		}
		if got := fr.Metadata["source"]; got != want {
			t.Errorf("ShowPaths %v: source %q, want %q", show, got, want)
		}
	}
}
