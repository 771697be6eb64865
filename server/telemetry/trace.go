package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvec/mcpvec/server"
)

// TracingConfigured reports whether an OTLP endpoint is set: the flag's
// value, or the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT (read with getenv).
func TracingConfigured(endpoint string, getenv func(string) string) bool {
	return endpoint != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

// Tracing is a running tracer provider that exports spans over
// OTLP/HTTP. Its methods are safe for concurrent use.
type Tracing struct {
	tp *sdktrace.TracerProvider
}

// StartTracing starts a tracer provider exporting spans over OTLP/HTTP
// (protobuf) in batches. endpoint is a base URL as in
// OTEL_EXPORTER_OTLP_ENDPOINT ("/v1/traces" is added to a URL without a
// path); "" leaves the exporter to the OTEL_EXPORTER_OTLP_* variables.
// Errors: a malformed endpoint.
func StartTracing(ctx context.Context, endpoint, version string) (*Tracing, error) {
	var opts []otlptracehttp.Option
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("otlp endpoint %q: want an http(s) URL", endpoint)
		}
		if strings.TrimSuffix(u.Path, "/") == "" {
			u.Path = "/v1/traces"
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	return &Tracing{tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(resource(version)))}, nil
}

// Stop sends the spans still queued (for at most 5 seconds) and ends the
// provider; a nil *Tracing stops as a no-op. A failed export is logged.
func (t *Tracing) Stop() {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.tp.Shutdown(ctx); err != nil {
		slog.Warn("tracing: send the last spans", "err", err)
	}
}

// traceContext reads the client's W3C trace context.
var traceContext = propagation.TraceContext{}

// trace records c as a server span named as the OpenTelemetry semantic
// conventions for MCP name it ("tools/call search"), a child of the
// client's span when it sent a traceparent, with a child span per search
// stage. The spans are made after the call, with its real times.
func (t *Telemetry) trace(c server.Call) {
	ctx := context.Background()
	if c.TraceParent != "" {
		carrier := propagation.MapCarrier{"traceparent": c.TraceParent, "tracestate": c.TraceState}
		ctx = traceContext.Extract(ctx, carrier)
	}
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Tool),
	}
	if c.Session != "" {
		attrs = append(attrs, attribute.String("mcp.session.id", c.Session))
	}
	if c.RequestID != "" {
		attrs = append(attrs, attribute.String("jsonrpc.request.id", c.RequestID))
	}
	ctx, span := t.tracer.Start(ctx, "tools/call "+c.Tool, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(c.Time), trace.WithAttributes(attrs...))
	for _, st := range c.Stages {
		_, s := t.tracer.Start(ctx, "search "+st.Name, trace.WithTimestamp(st.Start))
		s.End(trace.WithTimestamp(st.Start.Add(st.Took)))
	}
	switch c.Outcome {
	case server.OutcomeToolError:
		span.SetAttributes(attribute.String("error.type", "tool_error"))
		span.SetStatus(codes.Error, "tool error")
	case server.OutcomeFailed:
		span.SetAttributes(attribute.String("error.type", "failed"))
		span.SetStatus(codes.Error, "library error")
	}
	span.End(trace.WithTimestamp(c.Time.Add(c.Latency)))
}

// traceID returns the trace id of a W3C traceparent
// ("00-<32 hex>-<16 hex>-<2 hex>"), "" when malformed or all zeros.
func traceID(traceparent string) string {
	if len(traceparent) < 55 || traceparent[2] != '-' || traceparent[35] != '-' {
		return ""
	}
	id, err := trace.TraceIDFromHex(traceparent[3:35])
	if err != nil {
		return ""
	}
	return id.String()
}
