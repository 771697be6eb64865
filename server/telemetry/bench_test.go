package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/telemetry"
)

// BenchmarkSearchTelemetry measures one client's tools/call search over
// streamable HTTP on loopback against a real library (2,000 passages,
// lexical + vector) with the server's telemetry off, with metrics, with
// metrics and the JSON access log, and with those and OTLP tracing to an
// in-process receiver. docs/benchmarks/metrics.md has the figures:
//
//	go test -run '^$' -bench SearchTelemetry -benchtime 2000x -count 6 ./server/telemetry/
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
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for _, v := range []string{"off", "metrics", "metrics+log", "metrics+log+trace"} {
		b.Run(v, func(b *testing.B) {
			o := server.Options{Logger: quiet, LinkKey: make([]byte, 32)}
			if v != "off" {
				to := telemetry.Options{Logger: quiet}
				if v == "metrics+log+trace" {
					tp, err := telemetry.StartTracing(context.Background(), sink.URL, "bench")
					if err != nil {
						b.Fatal(err)
					}
					defer tp.Stop()
					to.Tracing = tp
				}
				tel := telemetry.New(to)
				o.Observe, o.Metrics = tel.Observe, tel.Handler()
				if v != "metrics" {
					o.Access = tel.Access
				}
			}
			benchSearch(b, f.Lib, o)
		})
	}
}

func benchSearch(b *testing.B, lib server.Library, o server.Options) {
	srv, err := server.New(lib, o)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	tr, err := transport.NewStreamableHTTP("http://" + ln.Addr().String() + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		req.Params.Arguments = map[string]any{"query": fmt.Sprintf("lanterns tide %d", i%13)}
		if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
			b.Fatalf("search: %+v %v", res, err)
		}
	}
}
