package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// readBody reads every request body in full before any handler runs, under
// a read deadline of BodyTimeout and a cap of MaxBodyBytes, so a body sent
// a byte a second cannot hold a connection and an oversized or batched
// message gets a JSON-RPC error that says so (mcp-go would report either as
// a parse error). The deadline is lifted once the body is in, so long-lived
// GET streams are unaffected.
//
// Each client may have at most MaxBodiesPerClient bodies being read at once
// (and everyone together 64 times that): a request beyond it is refused
// before its body is read and its connection closed, so slow bodies cannot
// take every file descriptor.
func (s *Server) readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
			next.ServeHTTP(w, r)
			return
		}
		key := client.Key(r)
		if !s.bodies.Acquire(key) {
			s.refuseBusy(w, r)
			return
		}
		if s.isWeb(r) {
			// The web interface reads and limits its own bodies (uploads),
			// under its own read deadline; its slot is held until it answers.
			defer s.bodies.Release(key)
			next.ServeHTTP(w, r)
			return
		}
		body, status, msg := s.bufferBody(w, r)
		s.bodies.Release(key)
		if status != 0 {
			s.log.Warn("refused request body", "path", r.URL.Path, "status", status, "reason", msg)
			// The rest of the body is unread: end the connection rather than
			// let net/http wait to drain it.
			w.Header().Set("Connection", "close")
			writeRPCError(w, status, mcp.INVALID_REQUEST, msg)
			return
		}
		if isBatch(body) {
			writeRPCError(w, http.StatusBadRequest, mcp.INVALID_REQUEST,
				"JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per request")
			return
		}
		r.Body = &bufferedBody{Reader: bytes.NewReader(body), b: body}
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
		// Every reader of the body copied what it read (mcp-go reads it
		// whole into its own slice first), and the handler has returned.
		putBuf(body)
	})
}

// bufferBody reads r's body into a buffer from getBuf; on failure it
// returns the HTTP status and a message for the client.
func (s *Server) bufferBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	limit := s.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge(limit)
	}
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) == nil
	// Room for the length announced, up to 64 KB: a client that announces
	// a megabyte and sends nothing gets no megabyte set aside.
	buf := bytes.NewBuffer(getBuf(int(min(max(0, r.ContentLength), 64<<10)) + bytes.MinRead))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	if deadline && err == nil {
		// Lifted once the body is in (a deadline left on the connection
		// would cancel a long answer); left passed on failure, so net/http
		// does not wait on the rest of the body.
		rc.SetReadDeadline(time.Time{})
	}
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case err == nil:
		return buf.Bytes(), 0, ""
	case errors.As(err, &tooBig):
		return nil, http.StatusRequestEntityTooLarge, tooLarge(limit)
	case errors.As(err, &netErr) && netErr.Timeout():
		return nil, http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s", s.opts.BodyTimeout)
	default:
		return nil, http.StatusBadRequest, "request body unreadable: " + err.Error()
	}
}

// refuseBusy answers a request over its client's body limit with 503 and
// closes the connection, its body unread; it logs the first refusal of
// every 1,024.
func (s *Server) refuseBusy(w http.ResponseWriter, r *http.Request) {
	if s.busy.Add(1)%1024 == 1 {
		s.log.Warn("refused requests: too many bodies in flight from one client", "remote", r.RemoteAddr,
			"max_bodies_per_client", s.opts.MaxBodiesPerClient, "refused", s.busy.Load())
	}
	w.Header().Set("Connection", "close")
	w.Header().Set("Retry-After", "1")
	// net/http would wait for the unread body to drain it: cut it now.
	http.NewResponseController(w).SetReadDeadline(time.Now())
	writeRPCError(w, http.StatusServiceUnavailable, mcp.INTERNAL_ERROR,
		"too many requests with a body in flight from your address; retry when they are done")
}

// tooLarge is the message for a body over limit bytes.
func tooLarge(limit int64) string {
	return fmt.Sprintf("request body too large (the limit is %d bytes)", limit)
}

// isBatch reports whether a body is a JSON array (a JSON-RPC batch).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// writeRPCError answers with a JSON-RPC error object (id null) and status.
func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(mcp.NewJSONRPCError(mcp.NewRequestId(nil), code, msg, nil))
}

// bufferedBody is a request body readBody has read whole: b, valid until
// the handler returns, lets a handler see it without reading it (the
// fast tool-call path, fastcall.go), leaving the reader for the next.
type bufferedBody struct {
	*bytes.Reader
	b []byte
}

func (*bufferedBody) Close() error { return nil }

// bodyBytes returns r's body when readBody buffered it and none of it has
// been read, else nil.
func bodyBytes(r *http.Request) []byte {
	if bb, ok := r.Body.(*bufferedBody); ok && bb.Len() == len(bb.b) {
		return bb.b
	}
	return nil
}
