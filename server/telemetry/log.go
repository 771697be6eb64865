package telemetry

import (
	"context"
	"log/slog"

	"github.com/mcpvec/mcpvec/server"
)

// logAccess writes r's access line: one per HTTP request, at Info. A
// query's text (a fetch's id) appears only with Options.LogQueries.
func (t *Telemetry) logAccess(r server.Request) {
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs, slog.String("method", r.Method), slog.String("route", r.Route),
		slog.Int("status", r.Status), slog.Int64("bytes", r.Bytes),
		slog.Float64("ms", float64(r.Duration.Microseconds())/1000))
	if r.MCPMethod != "" {
		attrs = append(attrs, slog.String("mcp_method", r.MCPMethod))
	}
	if r.Session != "" {
		attrs = append(attrs, slog.String("session", r.Session))
	}
	parent := r.TraceParent
	if c := r.Call; c != nil {
		attrs = append(attrs, slog.String("tool", c.Tool), slog.String("outcome", c.Outcome), slog.Int("results", c.Results))
		if c.Client != "" {
			attrs = append(attrs, slog.String("client", c.Client))
		}
		if t.opts.LogQueries {
			attrs = append(attrs, slog.String("query", c.Query))
		}
		if c.TraceParent != "" {
			parent = c.TraceParent
		}
	}
	if id := traceID(parent); id != "" {
		attrs = append(attrs, slog.String("trace_id", id))
	}
	t.log.LogAttrs(context.Background(), slog.LevelInfo, "http request", attrs...)
}
