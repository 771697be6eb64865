package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

func TestResponseSizeBounded(t *testing.T) {
	lib := newFakeLib()
	long := strings.Repeat("impeller blade wear ", 2000) // 40000 characters
	for i := range 30 {
		lib.docs = append(lib.docs, fakeDoc{id: "big" + string(rune('a'+i)), name: "big.txt", mediaType: "text/plain",
			pages: []string{long}})
	}
	s := MustNew(t, lib, Options{MaxResults: 5, MaxFetchChars: 1000})
	base := MustServe(t, s)
	c, _ := MustClient(t, s, streamable, base+"/mcp", nil, "")

	var sr library.SearchResponse
	decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "impeller"}), &sr)
	if len(sr.Results) != 5 {
		t.Errorf("results = %d, want MaxResults 5", len(sr.Results))
	}
	var fr library.FetchResponse
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "biga:0"}), &fr)
	if n := utf8.RuneCountInString(fr.Text); n > 1000 || n < 900 {
		t.Errorf("fetch text has %d characters, want just under 1000", n)
	}
	if fr.Metadata["truncated"] != true || fr.Metadata["document_id"] != "biga" {
		t.Errorf("metadata = %v, want truncated and the library's fields", fr.Metadata)
	}
	// The library's own map is not mutated.
	orig, _ := lib.Fetch(context.Background(), "biga:0", library.FetchOptions{})
	if _, ok := orig.Metadata["truncated"]; ok {
		t.Error("server mutated the library's metadata map")
	}
}

func TestLibraryFailureIsProtocolError(t *testing.T) {
	lib := newFakeLib()
	s := MustNew(t, lib, Options{})
	c, _ := MustClient(t, s, stdio, "", nil, mcp.ProtocolVersion20250618)
	lib.mu.Lock()
	lib.failWith = errors.New("disk on fire")
	lib.mu.Unlock()
	for _, call := range []struct{ tool, arg, val string }{{"search", "query", "pump"}, {"fetch", "id", "d1:0"}} {
		req := mcp.CallToolRequest{}
		req.Params.Name = call.tool
		req.Params.Arguments = map[string]any{call.arg: call.val}
		res, err := c.CallTool(t.Context(), req)
		if err == nil {
			t.Errorf("%s with a broken library: %+v, want a JSON-RPC error", call.tool, res)
		} else if strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("%s error %q leaks the cause to the client", call.tool, err)
		}
	}
	// Library sentinels the model can act on are tool results, not errors.
	lib.mu.Lock()
	lib.failWith = library.ErrQueryTooLong
	lib.mu.Unlock()
	if msg := errorText(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "pump"})); !strings.Contains(msg, "too long") {
		t.Errorf("ErrQueryTooLong message = %q", msg)
	}
	lib.mu.Lock()
	lib.failWith = library.ErrEmptyQuery
	lib.mu.Unlock()
	if msg := errorText(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "the"})); !strings.Contains(msg, "empty") {
		t.Errorf("ErrEmptyQuery message = %q", msg)
	}
	// A missing or mistyped argument is an isError result too.
	if msg := errorText(t, mcptest.CallTool(t, c, "search", map[string]any{"q": "pump"})); !strings.Contains(msg, "empty") {
		t.Errorf("missing query message = %q", msg)
	}
	if msg := errorText(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": 42})); !strings.Contains(msg, "must be a string, not a number") {
		t.Errorf("numeric id message = %q", msg)
	}
}

func TestInstructions(t *testing.T) {
	titles := make([]string, 20)
	for i := range titles {
		titles[i] = strings.Repeat("Very long handbook title ", 8) + string(rune('A'+i))
	}
	got := Instructions(library.Summary{Documents: 120, Chunks: 45000, Titles: titles})
	head := got[:512]
	for _, want := range []string{"120 documents, 45000 passages", "search(query)", "fetch(id)", "url"} {
		if !strings.Contains(head, want) {
			t.Errorf("first 512 characters lack %q:\n%s", want, head)
		}
	}
	if len(got) > maxInstructions+10 {
		t.Errorf("instructions are %d bytes, cap %d", len(got), maxInstructions)
	}
	if !strings.Contains(got, "Documents include:") {
		t.Error("instructions list no titles")
	}
	empty := Instructions(library.Summary{})
	if !strings.Contains(empty, "0 documents") || strings.Contains(empty, "include") {
		t.Errorf("empty library instructions = %q", empty)
	}
}

func TestShutdownClosesStreams(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	select {
	case <-s.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("Ready not closed after Serve started")
	}
	if got, want := s.URLs()[0], "http://"+ln.Addr().String()+"/mcp"; got != want {
		t.Errorf("URLs()[0] = %q after Ready, want %q", got, want)
	}
	resp, err := http.Get("http://" + ln.Addr().String() + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 256)
	if n, err := resp.Body.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "endpoint") {
		t.Fatalf("sse start: %q %v", buf[:n], err)
	}
	start := time.Now()
	cancel()
	waitServed(t, done, 8*time.Second, "with an open SSE stream")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %v with an open SSE stream", d)
	}
	if _, err := io.ReadAll(resp.Body); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Logf("stream ended with %v", err)
	}
}

// panicLib panics in every call, like a library with a bug.
type panicLib struct{ *fakeLib }

func (panicLib) Search(context.Context, string, library.SearchOptions) (*library.SearchResponse, error) {
	panic("boom")
}
func (panicLib) Original(context.Context, string) (*library.Original, error) { panic("boom") }

func TestPanicsDoNotEscape(t *testing.T) {
	s := MustNew(t, panicLib{newFakeLib()}, Options{})
	base := MustServe(t, s)
	c, _ := MustClient(t, s, streamable, base+"/mcp", nil, "")
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": "pump"}
	if res, err := c.CallTool(t.Context(), req); err == nil && !res.IsError {
		t.Errorf("panicking search returned %+v", res)
	}
	code, _, _ := do(t, "GET", base+"/docs/d1/"+signatureFor(testLinkKey, "d1"), "", "", nil)
	if code != http.StatusInternalServerError {
		t.Errorf("panicking Original: status %d, want 500", code)
	}
	// The server still answers.
	var fr library.FetchResponse
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "d1:0"}), &fr)
}

func TestURLs(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Addr: "0.0.0.0:9000", Token: "t", PublicURL: "https://x.ngrok-free.app/"})
	want := []string{"https://x.ngrok-free.app/mcp", "https://x.ngrok-free.app/sse/", "http://127.0.0.1:9000/mcp", "http://127.0.0.1:9000/sse"}
	if got := s.URLs(); !slices.Equal(got, want) {
		t.Errorf("URLs = %v, want %v", got, want)
	}
}

func TestInstructionsFollowTheLibrary(t *testing.T) {
	lib := newFakeLib()
	s := MustNew(t, lib, Options{})
	s.intro.ttl = 0 // no caching, so the test needs no sleep
	base := MustServe(t, s)
	lib.mu.Lock()
	lib.docs = append(lib.docs, fakeDoc{id: "d3", name: "late-arrival.txt", mediaType: "text/plain", pages: []string{"new"}})
	lib.mu.Unlock()
	for _, version := range []string{mcp.ProtocolVersion20250618, ""} {
		_, init := MustClient(t, s, streamable, base+"/mcp", nil, version)
		if !strings.Contains(init.Instructions, "3 documents, 4 passages") || !strings.Contains(init.Instructions, "late-arrival.txt") {
			t.Errorf("instructions (%q) after an ingest = %q", version, init.Instructions)
		}
	}
}

type summaryPanicLib struct{ *fakeLib }

func (summaryPanicLib) Summary(context.Context) (library.Summary, error) { panic("boom") }

func TestSummaryPanicIsAnError(t *testing.T) {
	if _, err := New(summaryPanicLib{newFakeLib()}, withQuiet(t, Options{})); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("New with a panicking Summary: %v, want an error", err)
	}
}
