package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/telemetry"
)

// variants are the telemetry set-ups BenchmarkSearchTelemetry compares.
var variants = []string{"off", "metrics", "metrics+log", "metrics+log+trace"}

// BenchmarkSearchTelemetry measures one client's tools/call search over
// streamable HTTP on loopback against a real library (2,000 passages,
// hybrid lexical + vector) served four times: telemetry off, metrics,
// metrics and the JSON access log, and those and OTLP tracing to an
// in-process receiver. Each round searches each server once, in turn, so
// the machine's load drifts over all alike; it reports each set-up's
// median latency and mean process CPU per search.
// docs/benchmarks/metrics.md has the figures:
//
//	go test -run '^$' -bench SearchTelemetry -benchtime 2000x -count 5 ./server/telemetry/
func BenchmarkSearchTelemetry(b *testing.B) {
	f := embeddedtest.New(b, library.Options{})
	for i := range 500 {
		pages := make([]string, 4)
		for p := range pages {
			pages[p] = fmt.Sprintf("Harbour %d keeps lanterns, ropes and %d barrels of tar; the keeper logs tide %d.", i, p*7+i, i%13)
		}
		f.Add(b, fmt.Sprintf("d%d", i), fmt.Sprintf("doc%d.txt", i), "text/plain", "", pages...)
	}
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	b.Cleanup(sink.Close)
	clients := make([]*client.Client, len(variants))
	for i, v := range variants {
		clients[i] = serveVariant(b, f.Lib, v, sink.URL)
	}
	lat := make([][]time.Duration, len(variants))
	cpu := make([]time.Duration, len(variants))
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	b.ResetTimer()
	for i := range b.N {
		req.Params.Arguments = map[string]any{"query": fmt.Sprintf("lanterns tide %d", i%13)}
		for k := range variants {
			v := (i + k) % len(variants)
			c0, t0 := cputime.Process(), time.Now()
			if res, err := clients[v].CallTool(context.Background(), req); err != nil || res.IsError {
				b.Fatalf("search: %+v %v", res, err)
			}
			lat[v] = append(lat[v], time.Since(t0))
			cpu[v] += cputime.Process() - c0
		}
	}
	b.StopTimer()
	for v, name := range variants {
		slices.Sort(lat[v])
		b.ReportMetric(float64(lat[v][len(lat[v])/2].Microseconds()), name+"-p50-us")
		b.ReportMetric(float64(cpu[v].Microseconds())/float64(b.N), name+"-cpu-us")
	}
}

// serveVariant serves lib with the telemetry set-up v (tracing to the
// OTLP endpoint sink) until b ends, and returns an initialised client.
func serveVariant(b *testing.B, lib server.Library, v, sink string) *client.Client {
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	o := server.Options{Logger: quiet, LinkKey: make([]byte, 32)}
	if v != "off" {
		to := telemetry.Options{Logger: quiet}
		if v == "metrics+log+trace" {
			tp, err := telemetry.StartTracing(context.Background(), sink, "bench")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(tp.Stop)
			to.Tracing = tp
		}
		tel := telemetry.New(to)
		o.Observe, o.Metrics = tel.Observe, tel.Handler()
		if v != "metrics" {
			o.Access = tel.Access
		}
	}
	tr, err := transport.NewStreamableHTTP(serve(b, lib, o) + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr)
	b.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	return c
}
