package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

var testLinkKey = []byte("0123456789abcdef0123456789abcdef")

// quietLogger discards logs unless -v is given.
func quietLogger(tb testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(testWriter{tb}, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) { w.tb.Log(string(p)); return len(p), nil }

// MustNew builds a Server for lib with test defaults filled into opts.
func MustNew(tb testing.TB, lib Library, opts Options) *Server {
	tb.Helper()
	if opts.LinkKey == nil {
		opts.LinkKey = testLinkKey
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger(tb)
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	s, err := New(lib, opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// MustServe serves s on 127.0.0.1:0 until the test ends and returns the
// base URL "http://127.0.0.1:port". Cleanup checks Serve returns nil.
func MustServe(tb testing.TB, s *Server) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	return MustServeOn(tb, s, ln)
}

// MustServeOn is MustServe on a listener made before s (whose options may
// need its address).
func MustServeOn(tb testing.TB, s *Server, ln net.Listener) string {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		waitServed(tb, done, 10*time.Second, "after cancel")
	})
	return "http://" + ln.Addr().String()
}

// waitServed fails tb unless Serve, whose result done receives, returns
// nil within d; when says what the wait is for.
func waitServed(tb testing.TB, done <-chan error, d time.Duration, when string) {
	tb.Helper()
	select {
	case err := <-done:
		if err != nil {
			tb.Errorf("Serve: %v", err)
		}
	case <-time.After(d):
		tb.Fatalf("Serve did not return %s", when)
	}
}

type transportKind string

const (
	streamable transportKind = "streamable"
	sse        transportKind = "sse"
	stdio      transportKind = "stdio"
)

// MustClient connects an mcp-go client to s over kind and initializes it
// with protocol version (empty: the newest). endpoint is the MCP URL for the
// HTTP kinds.
func MustClient(tb testing.TB, s *Server, kind transportKind, endpoint string, headers map[string]string, version string) (*client.Client, *mcp.InitializeResult) {
	tb.Helper()
	var tr transport.Interface
	var err error
	switch kind {
	case streamable:
		tr, err = transport.NewStreamableHTTP(endpoint, transport.WithHTTPHeaders(headers))
	case sse:
		tr, err = transport.NewSSE(endpoint, transport.WithHeaders(headers))
	case stdio:
		tr = stdioTransport(tb, s)
	}
	if err != nil {
		tb.Fatalf("%s transport: %v", kind, err)
	}
	return clientOnInit(tb, tr, version)
}

// clientOn starts a client on tr and initializes it with version ("" for
// the newest).
func clientOn(tb testing.TB, tr transport.Interface, version string) *client.Client {
	tb.Helper()
	c, _ := clientOnInit(tb, tr, version)
	return c
}

func clientOnInit(tb testing.TB, tr transport.Interface, version string) (*client.Client, *mcp.InitializeResult) {
	tb.Helper()
	var opts []client.ClientOption
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	// The SSE stream lives as long as Start's context.
	if err := c.Start(context.Background()); err != nil {
		tb.Fatalf("start client: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpvec-test", Version: "1"}
	init.Params.ProtocolVersion = version
	res, err := c.Initialize(ctx, init)
	if err != nil {
		tb.Fatalf("initialize (%q): %v", version, err)
	}
	return c, res
}

// stdioTransport runs s.ServeStdio on in-process pipes until the test ends.
func stdioTransport(tb testing.TB, s *Server) transport.Interface {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(ctx, toServerR, toClientW)
		toClientW.Close()
	}()
	tb.Cleanup(func() {
		cancel()
		toServerW.Close()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, io.ErrClosedPipe) {
				tb.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("ServeStdio did not return")
		}
	})
	return transport.NewIO(toClientR, toServerW, io.NopCloser(eofReader{}))
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// decodeResult checks that the result is not an error, that its one text
// item holds the same JSON as structuredContent, and decodes it into v.
func decodeResult(tb testing.TB, res *mcp.CallToolResult, v any) {
	tb.Helper()
	if res.IsError {
		tb.Fatalf("unexpected isError result: %+v", res.Content)
	}
	if len(res.Content) != 1 {
		tb.Fatalf("content items = %d, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		tb.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	structured := res.RawStructuredContent
	if len(structured) == 0 {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			tb.Fatal(err)
		}
		structured = b
	}
	var a, b any
	if err := json.Unmarshal([]byte(text.Text), &a); err != nil {
		tb.Fatalf("text item is not JSON: %v", err)
	}
	if err := json.Unmarshal(structured, &b); err != nil {
		tb.Fatalf("structuredContent: %v", err)
	}
	if ja, jb := mustJSON(tb, a), mustJSON(tb, b); ja != jb {
		tb.Fatalf("text item and structuredContent differ:\n%s\n%s", ja, jb)
	}
	if err := json.Unmarshal(structured, v); err != nil {
		tb.Fatalf("decode structuredContent: %v", err)
	}
}

// errorText returns the text of an isError result, failing otherwise.
func errorText(tb testing.TB, res *mcp.CallToolResult) string {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("result is not an error: %+v", res)
	}
	if len(res.Content) == 0 {
		tb.Fatal("error result has no content")
	}
	text, _ := res.Content[0].(mcp.TextContent)
	return text.Text
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
