package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ServeStream speaks MCP over one newline-delimited JSON-RPC stream, as
// ServeStdio does, but in a session of its own: any number may run at once
// in one process, beside ServeStdio and the HTTP transports (a running
// server serves `serve --stdio` clients handed to it this way). Tool
// results are those of ServeStdio (no source links: the request did not
// come over HTTP). Requests run concurrently; notifications in order. It
// returns when in ends (nil), when ctx is cancelled, or when out fails or a
// line exceeds MaxBodyBytes (the error); requests still running are
// cancelled and waited for first. out is written from one goroutine at a
// time, one message a line. When it returns before in ends, a goroutine
// blocked reading in stays until that Read returns: close in then.
func (s *Server) ServeStream(ctx context.Context, in io.Reader, out io.Writer) error {
	id := make([]byte, 16)
	rand.Read(id)
	sess := mcpserver.NewInProcessSession("stream-"+hex.EncodeToString(id), nil)
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("stream: register session: %w", err)
	}
	defer s.mcp.UnregisterSession(context.WithoutCancel(ctx), sess.SessionID())
	ss := newStreamSplicer()
	ctx, cancel := context.WithCancel(context.WithValue(s.mcp.WithContext(ctx, sess), streamSpliceKey{}, ss))
	defer cancel()
	st := &streamSession{srv: s, out: out, ss: ss, failed: make(chan struct{})}
	go st.notify(ctx, sess.ClientNotifications())
	err := st.read(ctx, in)
	cancel()
	st.requests.Wait()
	if err == nil {
		err = st.writeErr()
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stream: %w", err)
	}
	return nil
}

// streamSession is one ServeStream connection.
type streamSession struct {
	srv      *Server
	requests sync.WaitGroup
	mu       sync.Mutex // serialises writes to out
	out      io.Writer
	ss       *streamSplicer // fills the tool results' placeholders
	err      error          // the first write error
	failed   chan struct{}  // closed with err
}

// read hands each line of in to the MCP server until in ends, ctx ends or
// a write fails.
func (st *streamSession) read(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), int(st.srv.opts.MaxBodyBytes))
	lines := make(chan []byte)
	scanErr := make(chan error, 1)
	go func() {
		defer close(lines)
		for sc.Scan() {
			select {
			// A copy: the scanner reuses its buffer as soon as Scan is
			// called again, which may be before the reader is done.
			case lines <- append([]byte(nil), sc.Bytes()...):
			case <-ctx.Done():
				return
			}
		}
		scanErr <- sc.Err()
	}()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				select {
				case err := <-scanErr:
					return err
				default:
					return ctx.Err()
				}
			}
			st.handle(ctx, line)
		case <-ctx.Done():
			return ctx.Err()
		case <-st.failed:
			return st.writeErr()
		}
	}
}

// handle runs one message: a request on its own goroutine (a slow search
// must not hold up a cancellation), a notification in line, and a
// response from the client (none is ever asked for) not at all.
func (st *streamSession) handle(ctx context.Context, line []byte) {
	var head struct {
		Method string        `json:"method"`
		ID     mcp.RequestId `json:"id"`
	}
	if len(line) == 0 {
		return
	}
	if err := json.Unmarshal(line, &head); err != nil {
		st.write(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error", nil))
		return
	}
	if head.Method == "" {
		return
	}
	if head.ID.IsNil() {
		st.dispatch(ctx, head.ID, line)
		return
	}
	st.requests.Go(func() { st.dispatch(ctx, head.ID, line) })
}

// dispatch hands one message to the MCP server and writes its answer, if
// any. Tool handlers' panics are recovered by the MCP server itself; any
// other panic is logged and a request (id set) answered with an internal
// error, so it cannot end the process.
func (st *streamSession) dispatch(ctx context.Context, id mcp.RequestId, line []byte) {
	defer func() {
		if p := recover(); p != nil {
			st.srv.log.Error("stream: message handler panicked", "panic", p)
			if !id.IsNil() {
				st.write(mcp.NewJSONRPCError(id, mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", p), nil))
			}
		}
	}()
	if res := st.srv.mcp.HandleMessage(ctx, line); res != nil {
		st.write(res)
	}
}

// notify writes the session's notifications until ctx ends.
func (st *streamSession) notify(ctx context.Context, ch <-chan mcp.JSONRPCNotification) {
	for {
		select {
		case n := <-ch:
			st.write(n)
		case <-ctx.Done():
			return
		}
	}
}

// write sends one message as a line; after a failed write it does nothing.
func (st *streamSession) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		st.srv.log.Error("stream: encode message", "err", err)
		return
	}
	if line, ok := st.ss.fill(b); ok {
		defer putBuf(line)
		b = line
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return
	}
	if _, err := st.out.Write(append(b, '\n')); err != nil {
		st.err = err
		close(st.failed)
	}
}

func (st *streamSession) writeErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}
