package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/telemetry"
)

// telemetryFlags are serve's metrics, log and trace flags.
type telemetryFlags struct {
	metricsAddr string
	logFormat   string
	logQueries  bool
	otlp        string
}

func registerTelemetry(fs *flag.FlagSet, e *env) *telemetryFlags {
	f := &telemetryFlags{logFormat: "text"}
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve /metrics on its own listener `ADDR` (then only there) instead of the serve address")
	fs.Func("log-format", "log lines, one per HTTP request among them, as `text` (logfmt, the default) or json, to stderr", func(v string) error {
		f.logFormat = v
		return f.setLogFormat(e)
	})
	fs.BoolVar(&f.logQueries, "log-queries", false, "put each search's query (each fetch's id) in its access-log line")
	fs.StringVar(&f.otlp, "otlp-endpoint", "", "send OpenTelemetry traces over OTLP/HTTP to this base `URL` (else $OTEL_EXPORTER_OTLP_ENDPOINT; none: no tracing)")
	return f
}

// setLogFormat makes slog's default logger write f.logFormat lines to
// stderr. Errors: a format other than text or json.
func (f *telemetryFlags) setLogFormat(e *env) error {
	opts := &slog.HandlerOptions{Level: logLevel(e)}
	switch f.logFormat {
	case "text":
		slog.SetDefault(slog.New(slog.NewTextHandler(e.stderr, opts)))
	case "json":
		slog.SetDefault(slog.New(slog.NewJSONHandler(e.stderr, opts)))
	default:
		return fmt.Errorf("--log-format %q: want text or json", f.logFormat)
	}
	return nil
}

// start builds the server's telemetry for st and hooks it into o: tool
// calls and HTTP requests observed, /metrics on the serve address or on
// --metrics-addr, spans when an OTLP endpoint is configured. The returned
// func stops the metrics listener and flushes the spans.
func (f *telemetryFlags) start(ctx context.Context, e *env, o *server.Options, st *serveState) (stop func(), err error) {
	var tp *telemetry.Tracing
	if telemetry.TracingConfigured(f.otlp, e.getenv) {
		if tp, err = telemetry.StartTracing(ctx, f.otlp, Version); err != nil {
			return nil, err
		}
		slog.Info("tracing: spans go over OTLP/HTTP", "endpoint", cmp.Or(f.otlp, e.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), e.getenv("OTEL_EXPORTER_OTLP_ENDPOINT")))
	}
	tel := telemetry.New(telemetry.Options{Logger: slog.Default(), LogQueries: f.logQueries, Sizes: st.sizes, Tracing: tp})
	st.tel = tel
	o.Observe = chainObserve(o.Observe, tel.Observe)
	o.Access, o.Logger = chainObserve(o.Access, tel.Access), slog.Default()
	stopMetrics := func() {}
	if f.metricsAddr == "" {
		o.Metrics = tel.Handler()
	} else if stopMetrics, err = serveMetrics(ctx, f.metricsAddr, o, tel.Handler()); err != nil {
		tp.Stop()
		return nil, err
	}
	return func() { stopMetrics(); tp.Stop() }, nil
}

// newServerWith is newServer with the allow-list and audit trail team
// asks for, and the metrics, access log and traces tf asks for, the server
// serving st's forwarded stdio sessions; stop ends the telemetry and
// closes the audit trail.
func newServerWith(ctx context.Context, e *env, st *serveState, o *server.Options, withWeb bool, tf *telemetryFlags, team *teamFlags) (srv *server.Server, stop func(), err error) {
	if err := team.apply(e, o, st, libraryName(st.name, st.path)); err != nil {
		team.close()
		return nil, nil, err
	}
	stopTel, err := tf.start(ctx, e, o, st)
	if err != nil {
		team.close()
		return nil, nil, err
	}
	stop = func() { stopTel(); team.close() }
	if srv, err = newServer(e, st, o, withWeb); err != nil {
		stop()
		return nil, nil, err
	}
	st.stream = srv.ServeStream
	return srv, stop, nil
}

// chainObserve returns a hook (an observer, an access hook) telling a then
// b, each when set.
func chainObserve[T any](a, b func(T)) func(T) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(v T) { a(v); b(v) }
}

// sizes reads the served library's sizes for a scrape, without loading a
// deferred vector index. It is safe for concurrent use.
func (st *serveState) sizes(ctx context.Context) (telemetry.Sizes, error) {
	l := st.live.Current()
	sum, err := l.Summary(ctx)
	if err != nil {
		return telemetry.Sizes{}, err
	}
	return telemetry.Sizes{Documents: sum.Documents, Passages: sum.Chunks, Vectors: l.LoadedIndexStats(ctx).VectorPassages}, nil
}

// countWritten counts documents a command run inside serve wrote and
// removed (source: "sync", "ingest" — web uploads among them — or "watch").
func countWritten(st *serveState, source string, written, removed int) {
	if st != nil && st.tel != nil {
		st.tel.Written(source, written, removed)
	}
}
