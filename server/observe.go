package server

import (
	"context"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/identity"
)

// Outcomes of a Call.
const (
	OutcomeOK        = "ok"         // the tool answered
	OutcomeToolError = "tool_error" // an answer with isError: a mistake the model can fix
	OutcomeFailed    = "failed"     // the library failed (a JSON-RPC error)
)

// Call describes one MCP tool call, reported to Options.Observe.
type Call struct {
	Time    time.Time
	Client  string // the client's name from initialize, "" when unknown
	Tool    string // "search" or "fetch"
	Query   string // the query (its first maxCallQuery characters), or the id fetched
	Results int    // results returned (fetch: 1 when found)
	Latency time.Duration
	Failed  bool   // a tool error or a library failure
	Outcome string // OutcomeOK, OutcomeToolError or OutcomeFailed
	// Session is the MCP session id, "" when the transport has none.
	Session string
	// RequestID is the JSON-RPC request id, "" when unknown.
	RequestID string
	// TraceParent and TraceState are the client's W3C trace context:
	// params._meta.traceparent and tracestate, else the HTTP request's
	// traceparent and tracestate headers; "" when it sent none.
	TraceParent, TraceState string
	// Stages are the search's timed steps (library.Stage), in order.
	Stages []library.Stage
	// Person is who made the call (identity.FromContext); the zero Person
	// for the owner.
	Person identity.Person
}

// toolHandler is a tool handler that also says how many results it
// returned (for Options.Observe), so counting needs no decoding.
type toolHandler func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, int, error)

// observe makes h an mcp-go tool handler that reports each call to
// Options.Observe, and to the request's access line (Options.Access).
func (s *Server) observe(tool, arg string, h toolHandler) mcpserver.ToolHandlerFunc {
	if s.opts.Observe == nil && s.opts.Access == nil {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _, err := h(ctx, req)
			return res, err
		}
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var stages []library.Stage
		ctx = library.WithStages(ctx, func(st library.Stage) { stages = append(stages, st) })
		start := time.Now()
		res, n, err := h(ctx, req)
		c := Call{Time: start, Tool: tool, Query: clip(req.GetString(arg, ""), maxCallQuery), Latency: time.Since(start), Stages: stages}
		c.Outcome = outcome(res, err)
		c.Failed = c.Outcome != OutcomeOK
		if !c.Failed {
			c.Results = n
		}
		c.TraceParent, c.TraceState = traceContext(req)
		c.Person, _ = identity.FromContext(ctx)
		if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
			c.Session = cs.SessionID()
			if ci, ok := cs.(mcpserver.SessionWithClientInfo); ok {
				c.Client = ci.GetClientInfo().Name
			}
		}
		if c.Session == "" && req.Header != nil {
			c.Session = req.Header.Get("Mcp-Session-Id")
		}
		if nt := noteOf(ctx); nt != nil {
			nt.mu.Lock()
			c.RequestID = nt.id
			nt.call = &c
			nt.mu.Unlock()
		}
		if s.opts.Observe != nil {
			s.opts.Observe(c)
		}
		return res, err
	}
}

// outcome names how a tool call ended.
func outcome(res *mcp.CallToolResult, err error) string {
	switch {
	case err != nil || res == nil:
		return OutcomeFailed
	case res.IsError:
		return OutcomeToolError
	}
	return OutcomeOK
}

// traceContext returns the W3C trace context a client sent with req: the
// reserved params._meta keys (MCP 2026-07-28), else the HTTP headers.
func traceContext(req mcp.CallToolRequest) (parent, state string) {
	if m := req.Params.Meta; m != nil {
		parent, _ = m.AdditionalFields["traceparent"].(string)
		state, _ = m.AdditionalFields["tracestate"].(string)
	}
	if parent == "" && req.Header != nil {
		parent, state = req.Header.Get("Traceparent"), req.Header.Get("Tracestate")
	}
	return parent, state
}

// DocURL returns the signed absolute link the MCP tools would cite for
// page or anchor of a document (see citeLink), based at the address r
// reached the server at (PublicURL when set). It is safe for concurrent use.
func (s *Server) DocURL(r *http.Request, docID string, page int, anchor string) string {
	return s.citeLink(s.publicBase(r), docID, page, anchor)
}

// SecretPrefix returns "" or "/" + Options.SecretPath: where the MCP
// endpoints live.
func (s *Server) SecretPrefix() string { return s.prefix }

// maxCallQuery bounds the query a Call keeps: a 32,000-character query
// is a pasted article, and the activity page lists hundreds of calls.
const maxCallQuery = 300

// clip returns s cut to n characters, with "…" when it was cut.
func clip(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
