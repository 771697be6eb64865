package server

import (
	"context"
	"encoding/json"
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
	Query   string // the query, or the id fetched
	Results int    // results returned (fetch: 1 when found)
	Latency time.Duration
	Failed  bool // a tool error or a library failure
}

// observe wraps a tool handler so each call is reported to Options.Observe.
func (s *Server) observe(tool, arg string, h mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	if s.opts.Observe == nil {
		return h
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := h(ctx, req)
		c := Call{Time: start, Tool: tool, Query: req.GetString(arg, ""), Latency: time.Since(start)}
		c.Failed = err != nil || res == nil || res.IsError
		if !c.Failed {
			c.Results = countResults(res)
		}
		if cs, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
			c.Client = cs.GetClientInfo().Name
		}
		s.opts.Observe(c)
		return res, err
	}
}

func countResults(res *mcp.CallToolResult) int {
	var v struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(res.RawStructuredContent, &v) != nil || v.Results == nil {
		return 1
	}
	return len(v.Results)
}

// DocURL returns the signed absolute link the MCP tools would cite for
// page or anchor of a document (see citePath), based at the address r
// reached the server at (PublicURL when set). It is safe for concurrent use.
func (s *Server) DocURL(r *http.Request, docID string, page int, anchor string) string {
	return s.publicBase(r) + s.citePath(docID, page, anchor)
}

// SecretPrefix returns "" or "/" + Options.SecretPath: where the MCP
// endpoints live.
func (s *Server) SecretPrefix() string { return s.prefix }
