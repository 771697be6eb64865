package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The fast tool-call path. mcp-go's streamable HTTP handlePost decodes a
// request four times, starts a goroutine to forward notifications, and
// encodes the placeholder result through CallToolResult.MarshalJSON: on
// the no-op server that is most of its 0.08–0.10 ms a call, and a third of
// what serve spent around the search. For the common case — a tools/call
// of one of our own tools, on a live session, from a client of a protocol
// version before 2026-07-28, with no _meta and no task — the server
// decodes the request once, runs the tool's handler as mcp-go would, and
// writes the response mcp-go would write, byte for byte (the placeholder
// response is encoded once, at New, around the request id). Anything else
// goes to mcp-go untouched, which also writes every error (bad JSON,
// unknown session or tool, wrong protocol version).
//
// What mcp-go does per request that a client can observe is kept in step:
// the session id manager validates and touches the session (so the cap's
// eviction order and the idle expiry, idle.go, see the call); the handler
// runs with the session in its context, the Observe and access hooks, and
// mcp-go's panic recovery; notifications/cancelled cancels a call in
// flight (noteCancel); the request's context ends when the client goes,
// and then nothing is written, as mcp-go writes nothing. Our tools send no
// notifications, so there is nothing to forward while they run.
type fastPath struct {
	tools    map[string]mcpserver.ToolHandlerFunc // our tools by name
	sessions sync.Map                             // session id → mcpserver.ClientSession
	inflight sync.Map                             // inflightKey → *context.CancelFunc
	before   []byte                               // the placeholder response up to its id
	after    []byte                               // and after it
	served   atomic.Int64                         // calls answered here
	off      atomic.Bool                          // everything to mcp-go (tests; or no template)
}

// initFast prepares the fast path: the placeholder response around a
// random id, and hooks that keep mcp-go's registered sessions at hand.
func (s *Server) initFast(hooks *mcpserver.Hooks) {
	s.fast.tools = make(map[string]mcpserver.ToolHandlerFunc)
	idTok := `"mcpvec-id-` + rand.Text() + `"`
	var b bytes.Buffer
	res := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(idTok[1:len(idTok)-1]), placeholderResult(s.spliceTok))
	if err := json.NewEncoder(&b).Encode(res); err != nil {
		s.fast.off.Store(true) // cannot happen: the fast path simply stays off
		return
	}
	before, after, ok := bytes.Cut(b.Bytes(), []byte(idTok))
	if !ok {
		s.fast.off.Store(true)
		return
	}
	s.fast.before, s.fast.after = before, after
	hooks.AddOnRegisterSession(func(_ context.Context, cs mcpserver.ClientSession) {
		s.fast.sessions.Store(cs.SessionID(), cs)
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs mcpserver.ClientSession) {
		s.fast.sessions.CompareAndDelete(cs.SessionID(), cs)
	})
}

// addTool registers a tool with mcp-go and with the fast path.
func (s *Server) addTool(t mcp.Tool, h mcpserver.ToolHandlerFunc) {
	s.mcp.AddTool(t, h)
	s.fast.tools[t.Name] = h
}

// callEnvelope is a JSON-RPC message decoded once, as mcp-go's several
// decodes would see it.
type callEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	mcp.CallToolRequest
}

// fastCall is a tools/call the fast path answers.
type fastCall struct {
	req     mcp.CallToolRequest
	id      any // the request id as mcp-go decodes it: a string or float64
	session mcpserver.ClientSession
	handler mcpserver.ToolHandlerFunc
}

// streamDeadlines gives every write of a streamable HTTP response a write
// deadline (see deadlineWriter), and a POST's response a splice for the
// tool result it may carry; a POST's JSON response is held and sent whole
// when the handler returns (hold.go). A POST may be answered by the fast
// tool-call path (fastcall.go); a GET stream keeps its session from idling
// out (idle.go).
func (s *Server) streamDeadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := s.withWriteDeadline(w, nil)
		switch r.Method {
		case http.MethodPost:
			dw.splice = &splice{tok: s.spliceTok}
			dw.hold = true
			r = r.WithContext(context.WithValue(r.Context(), spliceKey{}, dw.splice))
			s.serveStream(next, dw, r)
		case http.MethodGet:
			s.trackStream(next, dw, r)
		default:
			next.ServeHTTP(dw, r)
		}
		dw.finish()
	})
}

// serveStream serves the streamable HTTP endpoint: a POST the fast path
// takes, else mcp-go (next).
func (s *Server) serveStream(next http.Handler, dw *deadlineWriter, r *http.Request) {
	body := bodyBytes(r)
	if s.fast.off.Load() || body == nil {
		next.ServeHTTP(dw, r)
		return
	}
	var env callEnvelope
	if json.Unmarshal(body, &env) != nil {
		next.ServeHTTP(dw, r)
		return
	}
	if c, ok := s.takeCall(r, &env); ok {
		s.fast.served.Add(1)
		s.runCall(dw, r, c)
		return
	}
	next.ServeHTTP(dw, r)
	if env.Method == string(mcp.MethodNotificationCancelled) && len(env.ID) == 0 {
		s.noteCancel(r, body)
	}
}

// takeCall returns the call env carries when the fast path may answer it
// the way mcp-go would; it validates (touches) the session last, so a
// request it declines has changed nothing.
func (s *Server) takeCall(r *http.Request, env *callEnvelope) (fastCall, bool) {
	var c fastCall
	if env.Method != string(mcp.MethodToolsCall) || env.JSONRPC != mcp.JSONRPC_VERSION ||
		env.Result != nil || env.Error != nil || env.Params.Meta != nil || env.Params.Task != nil {
		return c, false
	}
	if json.Unmarshal(env.ID, &c.id) != nil {
		return c, false
	}
	switch c.id.(type) {
	case string, float64:
	default:
		return c, false // absent, null (a notification) or not an id
	}
	if c.handler = s.fast.tools[env.Params.Name]; c.handler == nil || !legacyRequest(r) {
		return c, false
	}
	sid := r.Header.Get(mcpserver.HeaderKeySessionID)
	cs, ok := s.fast.sessions.Load(sid)
	if !ok || sid == "" {
		return c, false
	}
	if _, err := s.sessions.Validate(sid); err != nil {
		return c, false
	}
	c.session = cs.(mcpserver.ClientSession)
	c.req = env.CallToolRequest
	c.req.Header = r.Header
	return c, true
}

// legacyRequest reports whether r is a JSON POST that mcp-go would serve on
// its session path: no protocol version header (2025-03-26) or a supported
// one before 2026-07-28.
func legacyRequest(r *http.Request) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	v := r.Header.Get(mcp.HeaderProtocolVersion)
	return v == "" || (mcp.IsValidProtocolVersion(v) && !mcp.IsModernProtocol(v))
}

// inflightKey names a call in flight for notifications/cancelled, as
// mcp-go keys its own: the session and the request id.
func inflightKey(session string, id any) string {
	switch v := id.(type) {
	case string:
		return session + ":" + v
	case float64:
		return session + ":" + strconv.FormatFloat(v, 'g', -1, 64) // as %v
	}
	return fmt.Sprintf("%s:%v", session, id)
}

// runCall runs c's handler and writes its response.
func (s *Server) runCall(dw *deadlineWriter, r *http.Request, c fastCall) {
	ctx := s.mcp.WithContext(r.Context(), c.session)
	ctx = context.WithValue(ctx, baseKey{}, s.publicBase(r))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := inflightKey(c.session.SessionID(), c.id)
	entry := &cancel // a pointer: funcs do not compare
	s.fast.inflight.Store(key, entry)
	defer s.fast.inflight.CompareAndDelete(key, entry)
	noteMethod(ctx, c.id, mcp.MethodToolsCall, &c.req)
	res, err := callRecovered(ctx, c)
	if r.Context().Err() != nil {
		return // the client has gone: mcp-go writes nothing either
	}
	dw.Header().Set("Content-Type", "application/json")
	dw.WriteHeader(http.StatusOK)
	switch {
	case err != nil:
		s.encodeResponse(dw, rpcError(c.id, err))
	case res == nil:
		s.encodeResponse(dw, rpcError(c.id, fmt.Errorf("tool '%s' handler returned no result", c.req.Params.Name)))
	case dw.splice != nil && dw.splice.placeholder(res):
		s.writePlaceholder(dw, c.id)
	default:
		s.encodeResponse(dw, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(c.id), res))
	}
}

// callRecovered calls c's handler, turning a panic into the error mcp-go's
// WithRecovery makes of it.
func callRecovered(ctx context.Context, c fastCall) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("panic recovered in %s tool handler: %v", c.req.Params.Name, v)
		}
	}()
	return c.handler(ctx, c.req)
}

// rpcError is mcp-go's answer to a handler's error.
func rpcError(id any, err error) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
		Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, err.Error(), nil)}
}

// encodeResponse writes v as mcp-go writes a response.
func (s *Server) encodeResponse(w http.ResponseWriter, v any) {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.log.Error("write response", "err", err)
	}
}

// writePlaceholder writes the placeholder response with id, which the
// writer's splice fills in.
func (s *Server) writePlaceholder(w http.ResponseWriter, id any) {
	idJSON, err := json.Marshal(mcp.NewRequestId(id))
	if err != nil {
		s.log.Error("write response", "err", err)
		return
	}
	buf := getBuf(len(s.fast.before) + len(idJSON) + len(s.fast.after))
	buf = append(append(append(buf, s.fast.before...), idJSON...), s.fast.after...)
	if _, err := w.Write(buf); err != nil {
		s.log.Error("write response", "err", err)
	}
	putBuf(buf)
}

// noteCancel cancels the fast call a notifications/cancelled in body names,
// on r's session when it is live (mcp-go has answered it and cancelled any
// call of its own).
func (s *Server) noteCancel(r *http.Request, body []byte) {
	var n struct {
		Params struct {
			RequestID any `json:"requestId"`
		} `json:"params"`
	}
	sid := r.Header.Get(mcpserver.HeaderKeySessionID)
	if sid == "" || !legacyRequest(r) || !s.sessions.isLive(sid) || json.Unmarshal(body, &n) != nil || n.Params.RequestID == nil {
		return
	}
	if cancel, ok := s.fast.inflight.LoadAndDelete(inflightKey(sid, n.Params.RequestID)); ok {
		(*cancel.(*context.CancelFunc))()
	}
}
