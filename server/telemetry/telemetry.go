// Package telemetry turns what the MCP server observes (server.Call for
// each tool call, server.Request for each HTTP request) into Prometheus
// metrics, one access-log line per request and OpenTelemetry spans. The
// server and the core know nothing of Prometheus or OpenTelemetry: the
// server reports through Options.Observe and Options.Access, the core
// times a search's stages through library.WithStages.
package telemetry

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpvec/mcpvec/server"
)

// Sizes are the library's sizes, read at each scrape.
type Sizes struct {
	Documents, Passages, Vectors int
}

// Options configures a Telemetry. The zero value logs to slog.Default(),
// never logs queries, and traces nothing.
type Options struct {
	// Logger receives the access lines (Info); nil means slog.Default().
	Logger *slog.Logger
	// LogQueries puts a search's query (a fetch's id) in its access line.
	LogQueries bool
	// Tracing makes the spans (StartTracing); nil means none, at no cost.
	Tracing *Tracing
	// Sizes reports the index sizes at scrape time; nil leaves them out.
	// It must be safe for concurrent use.
	Sizes func(context.Context) (Sizes, error)
}

// Telemetry holds the metrics of one server. Its methods are safe for
// concurrent use.
type Telemetry struct {
	opts    Options
	log     *slog.Logger
	reg     *prometheus.Registry
	m       *metrics
	tracer  trace.Tracer
	tracing bool
}

// New builds a Telemetry with its own registry (the Go and process
// collectors included).
func New(o Options) *Telemetry {
	t := &Telemetry{opts: o, log: o.Logger, reg: prometheus.NewRegistry()}
	if t.log == nil {
		t.log = slog.Default()
	}
	var tp trace.TracerProvider = noop.NewTracerProvider()
	if t.tracing = o.Tracing != nil; t.tracing {
		tp = o.Tracing.tp
	}
	t.tracer = tp.Tracer("github.com/mcpvec/mcpvec/server")
	t.m = newMetrics(t.reg)
	t.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.Sizes != nil {
		t.reg.MustRegister(&sizeCollector{sizes: o.Sizes, log: t.log})
	}
	return t
}

// Handler serves the metrics in the Prometheus text format.
func (t *Telemetry) Handler() http.Handler {
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(t.log.Handler(), slog.LevelWarn)})
}

// Observe counts a tool call, times it and its search stages, and traces
// it when a tracer is set. Its signature fits server.Options.Observe.
func (t *Telemetry) Observe(c server.Call) {
	t.m.calls.WithLabelValues(c.Tool, c.Outcome).Inc()
	t.m.latency.WithLabelValues(c.Tool).Observe(c.Latency.Seconds())
	for _, st := range c.Stages {
		t.m.stages.WithLabelValues(st.Name).Observe(st.Took.Seconds())
	}
	if t.tracing {
		t.trace(c)
	}
}

// Access counts an HTTP request and writes its access line. Its signature
// fits server.Options.Access.
func (t *Telemetry) Access(r server.Request) {
	t.m.http.WithLabelValues(r.Route, r.Method, statusText(r.Status)).Inc()
	if r.Refused() && isMCPRoute(r.Route) {
		t.m.calls.WithLabelValues("unknown", "refused").Inc()
	}
	if r.Route == "/oauth/token" && r.Method == http.MethodPost {
		t.grant(r.Status == http.StatusOK)
	}
	t.logAccess(r)
}

// Written counts documents a sync, a watched folder or an upload (source)
// wrote and removed.
func (t *Telemetry) Written(source string, written, removed int) {
	t.m.written.WithLabelValues(source).Add(float64(written))
	t.m.removed.WithLabelValues(source).Add(float64(removed))
}

// grant counts an answer of the OAuth token endpoint: tokens issued, or
// refused.
func (t *Telemetry) grant(issued bool) {
	result := "refused"
	if issued {
		result = "issued"
	}
	t.m.grants.WithLabelValues(result).Inc()
}

func isMCPRoute(route string) bool { return route == "/mcp" || route == "/sse" || route == "/message" }
