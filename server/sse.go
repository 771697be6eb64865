package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// connKey carries a request's net.Conn in its context (http.Server's
// ConnContext, set by Serve).
type connKey struct{}

// sseLimiter bounds what legacy SSE clients can make the server hold.
// mcp-go's SSEServer answers each message POST with 202 and queues the
// answer for the stream, waiting without limit when the client does not
// read; so the limiter counts, per stream, the requests posted and the
// events written, and closes a stream whose client leaves more than
// maxPending answers unread (its waiting answers are then released). Since
// an answer counts as read once the kernel took it, each stream's socket
// gets a small send buffer (sseSendBuffer), so what the kernel holds for a
// client that does not read is small too. It also caps the open streams,
// per client and in all. Safe for concurrent use.
type sseLimiter struct {
	maxPending int64
	log        *slog.Logger
	open       *client.Gate

	mu    sync.Mutex
	conns map[string]*sseConn
}

// sseSendBuffer is the socket send buffer of an SSE stream (the kernel
// doubles it): a few answers, instead of the megabytes the kernel would
// let a stream that nobody reads queue.
const sseSendBuffer = 16 << 10

// sseConn is one open SSE stream.
type sseConn struct {
	pending atomic.Int64 // requests posted whose answer was not yet written
	cancel  context.CancelFunc
}

type sseConnKey struct{}

func newSSELimiter(maxStreams, perClient, maxPending int, log *slog.Logger) *sseLimiter {
	return &sseLimiter{maxPending: int64(maxPending), log: log, open: client.NewGate(perClient, maxStreams), conns: make(map[string]*sseConn)}
}

// newID is mcp-go's SSE session id generator: it names the stream that
// stream() put in ctx, so message() can find it.
func (l *sseLimiter) newID(ctx context.Context, _ *http.Request) (string, error) {
	b := make([]byte, 18)
	rand.Read(b)
	id := base64.RawURLEncoding.EncodeToString(b)
	if c, ok := ctx.Value(sseConnKey{}).(*sseConn); ok {
		l.mu.Lock()
		l.conns[id] = c
		l.mu.Unlock()
		context.AfterFunc(ctx, func() {
			l.mu.Lock()
			delete(l.conns, id)
			l.mu.Unlock()
		})
	}
	return id, nil
}

// stream wraps the SSE stream handler: it refuses streams beyond the caps,
// shrinks the socket's send buffer, gives each write a deadline (wrap)
// that closes the stream when it passes, and counts the answers written.
func (l *sseLimiter) stream(next http.Handler, wrap func(http.ResponseWriter, func()) *deadlineWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := client.Key(r)
		if !l.open.Acquire(key) {
			http.Error(w, "too many open SSE streams; try again later", http.StatusServiceUnavailable)
			return
		}
		defer l.open.Release(key)
		if c, ok := r.Context().Value(connKey{}).(interface{ SetWriteBuffer(int) error }); ok {
			c.SetWriteBuffer(sseSendBuffer) // best effort: a smaller queue
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		c := &sseConn{cancel: cancel}
		next.ServeHTTP(&eventCounter{deadlineWriter: wrap(w, cancel), c: c}, r.WithContext(context.WithValue(ctx, sseConnKey{}, c)))
	})
}

// message wraps the SSE message handler: a request posted to a stream that
// already has maxPending unread answers closes that stream and is refused.
func (l *sseLimiter) message(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("sessionId")
		l.mu.Lock()
		c := l.conns[id]
		l.mu.Unlock()
		if c == nil && r.Method == http.MethodPost {
			// Every stream is registered here, so the session is unknown or
			// closed (mcp-go would call it "invalid params").
			writeRPCError(w, http.StatusNotFound, mcp.INVALID_REQUEST,
				fmt.Sprintf("unknown or closed SSE session %q: open the SSE stream again", id))
			return
		}
		if c == nil || r.Method != http.MethodPost || !isRequest(r) {
			next.ServeHTTP(w, r)
			return
		}
		if c.pending.Add(1) > l.maxPending {
			c.pending.Add(-1)
			c.cancel()
			l.log.Warn("closed an SSE stream whose client does not read it", "unread", l.maxPending)
			writeRPCError(w, http.StatusServiceUnavailable, mcp.INTERNAL_ERROR,
				"the event stream of this session was closed: its client left too many answers unread; reconnect")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isRequest reports whether r's (buffered) body is a JSON-RPC request,
// which gets an answer on the stream; it leaves the body readable.
func isRequest(r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return err == nil && json.Unmarshal(body, &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// eventCounter counts the events written to an SSE stream against the
// answers pending. Pings and notifications count too, which only makes the
// limit a little more lenient.
type eventCounter struct {
	*deadlineWriter
	c *sseConn
}

// Write implements http.ResponseWriter.
func (e *eventCounter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("event: message")) {
		for {
			n := e.c.pending.Load()
			if n <= 0 || e.c.pending.CompareAndSwap(n, n-1) {
				break
			}
		}
	}
	return e.deadlineWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (e *eventCounter) Unwrap() http.ResponseWriter { return e.deadlineWriter }
