package server

import (
	"context"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Call describes one MCP tool call, reported to Options.Observe.
type Call struct {
	Time    time.Time
	Client  string // the client's name from initialize, "" when unknown
	Tool    string // "search" or "fetch"
	Query   string // the query (its first maxCallQuery characters), or the id fetched
	Results int    // results returned (fetch: 1 when found)
	Latency time.Duration
	Failed  bool // a tool error or a library failure
}

// toolHandler is a tool handler that also says how many results it
// returned (for Options.Observe), so counting needs no decoding.
type toolHandler func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, int, error)

// observe makes h an mcp-go tool handler that reports each call to
// Options.Observe.
func (s *Server) observe(tool, arg string, h toolHandler) mcpserver.ToolHandlerFunc {
	if s.opts.Observe == nil {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _, err := h(ctx, req)
			return res, err
		}
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, n, err := h(ctx, req)
		c := Call{Time: start, Tool: tool, Query: clip(req.GetString(arg, ""), maxCallQuery), Latency: time.Since(start)}
		c.Failed = err != nil || res == nil || res.IsError
		if !c.Failed {
			c.Results = n
		}
		if cs, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
			c.Client = cs.GetClientInfo().Name
		}
		s.opts.Observe(c)
		return res, err
	}
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
