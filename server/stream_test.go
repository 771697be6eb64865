package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// streamTransport runs s.ServeStream on in-process pipes until the test
// ends.
func streamTransport(tb testing.TB, s *Server) transport.Interface {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStream(context.Background(), toServerR, toClientW)
		toClientW.Close()
	}()
	tb.Cleanup(func() {
		toServerW.Close() // the end of stdin ends the session
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("ServeStream: %v", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("ServeStream did not return after its input ended")
		}
	})
	return transport.NewIO(toClientR, toServerW, io.NopCloser(eofReader{}))
}

// TestServeStreamSessionsBesideStdio runs two stream sessions at once
// beside ServeStdio on one server: each initializes on its own and gets
// the tool results a stdio client gets.
func TestServeStreamSessionsBesideStdio(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Logger: quietLogger(t)})
	direct, _ := MustClient(t, s, stdio, "", nil, "")
	a := clientOn(t, streamTransport(t, s), "")
	b := clientOn(t, streamTransport(t, s), "")
	args := map[string]any{"query": "impeller bronze"}
	want := mustJSON(t, mcptest.CallTool(t, direct, "search", args))
	for i, c := range []*client.Client{a, b, a} {
		if got := mustJSON(t, mcptest.CallTool(t, c, "search", args)); got != want {
			t.Fatalf("stream session %d search = %s\nstdio search = %s", i, got, want)
		}
	}
}

// blockingLib's Search waits for its ctx to end.
type blockingLib struct {
	*fakeLib
	started, cancelled chan struct{}
}

func (l *blockingLib) Search(ctx context.Context, _ string, _ library.SearchOptions) (*library.SearchResponse, error) {
	close(l.started)
	<-ctx.Done()
	close(l.cancelled)
	return nil, ctx.Err()
}

// TestServeStreamCancelsWhenInputEnds: when the client's stdin closes
// with a search still running, the search is cancelled and ServeStream
// returns, as a stdio server does.
func TestServeStreamCancelsWhenInputEnds(t *testing.T) {
	lib := &blockingLib{fakeLib: newFakeLib(), started: make(chan struct{}), cancelled: make(chan struct{})}
	s := MustNew(t, lib, Options{Logger: quietLogger(t)})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"pump"}}}
`)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStream(context.Background(), io.MultiReader(in, waitReader{lib.started}), pw)
		pw.Close()
	}()
	go io.Copy(io.Discard, pr)
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("ServeStream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStream still running 10 s after its input ended")
	}
	select {
	case <-lib.cancelled:
	default:
		t.Fatal("ServeStream returned with the search not cancelled")
	}
}

// waitReader ends (io.EOF) once ch is closed.
type waitReader struct{ ch <-chan struct{} }

func (w waitReader) Read([]byte) (int, error) { <-w.ch; return 0, io.EOF }
