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
)

// sseLimiter bounds what legacy SSE clients can make the server hold.
// mcp-go's SSEServer answers each message POST with 202 and queues the
// answer for the stream, waiting without limit when the client does not
// read; so the limiter counts, per stream, the requests posted and the
// events written, and closes a stream whose client leaves more than
// maxPending answers unread (its waiting answers are then released). It also
// caps the number of open streams. Safe for concurrent use.
type sseLimiter struct {
	maxStreams int
	maxPending int64
	log        *slog.Logger

	mu    sync.Mutex
	conns map[string]*sseConn
	open  int
}

// sseConn is one open SSE stream.
type sseConn struct {
	pending atomic.Int64 // requests posted whose answer was not yet written
	cancel  context.CancelFunc
}

type sseConnKey struct{}

func newSSELimiter(maxStreams, maxPending int, log *slog.Logger) *sseLimiter {
	return &sseLimiter{maxStreams: maxStreams, maxPending: int64(maxPending), log: log, conns: make(map[string]*sseConn)}
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

// stream wraps the SSE stream handler: it refuses streams beyond the cap,
// gives each write a deadline (wrap) that closes the stream when it
// passes, and counts the answers written.
func (l *sseLimiter) stream(next http.Handler, wrap func(http.ResponseWriter, func()) *deadlineWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		l.mu.Lock()
		full := l.open >= l.maxStreams
		if !full {
			l.open++
		}
		l.mu.Unlock()
		if full {
			http.Error(w, "too many open SSE streams; try again later", http.StatusServiceUnavailable)
			return
		}
		defer func() { l.mu.Lock(); l.open--; l.mu.Unlock() }()
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
