package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
)

// constLib answers every search with the same 10 results, so a benchmark on
// it measures the server and transport alone (MCP framing, JSON, HTTP).
type constLib struct{ *fakeLib }

func (constLib) Search(ctx context.Context, query string, so library.SearchOptions) (*library.SearchResponse, error) {
	k := so.K
	out := &library.SearchResponse{Results: make([]library.SearchResult, 0, k)}
	for i := range min(k, 10) {
		out.Results = append(out.Results, library.SearchResult{
			ID: fmt.Sprintf("d%d:%d", i, i), Title: fmt.Sprintf("doc%d.pdf — p. %d", i, i+1), DocID: fmt.Sprintf("d%d", i), Page: i + 1,
			Text: "A passage of about three hundred characters that stands in for a real snippet. " +
				"It is long enough that JSON encoding and the transport carry a realistic load " +
				"per result, which is what a deep-research client receives for each hit it sees.",
		})
	}
	return out, nil
}

// BenchmarkSearchHTTP measures tools/call search over streamable HTTP on
// loopback with 1 and 16 concurrent clients and reports p50/p99 latency and
// requests per second. The library is constLib (no query embedding, no index
// work); see BenchmarkSearchHTTPLibrary for the real query path.
func BenchmarkSearchHTTP(b *testing.B) {
	benchSearch(b, constLib{newFakeLib()}, []string{"impeller"})
}

func benchSearch(b *testing.B, lib Library, queries []string) {
	s := MustNew(b, lib, Options{})
	base := MustServe(b, s)
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Cleanup(httpc.CloseIdleConnections)
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			cs := make([]*client.Client, clients)
			for i := range cs {
				tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPBasicClient(httpc))
				if err != nil {
					b.Fatal(err)
				}
				cs[i] = clientOn(b, tr, mcp.ProtocolVersion20250618)
			}
			lat := make([]time.Duration, b.N)
			var next atomic.Int64
			var failed atomic.Int64
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			cpu, start := reallib.StartCPU(), time.Now()
			for _, c := range cs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1) - 1)
						if i >= b.N {
							return
						}
						req := mcp.CallToolRequest{}
						req.Params.Name = "search"
						req.Params.Arguments = map[string]any{"query": queries[i%len(queries)]}
						t0 := time.Now()
						res, err := c.CallTool(context.Background(), req)
						lat[i] = time.Since(t0)
						if err != nil || res.IsError {
							failed.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			cpu.Report(b)
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d of %d searches failed", n, b.N)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
		})
	}
}

// BenchmarkSearchHTTPLibrary is BenchmarkSearchHTTP against the real query
// path (hybrid lexical + HNSW search, snippets) over a synthetic library of
// 100k passages (10k with -short) built with a fixed seed. The query
// embedding is the offline hash embedder, so an embedding API call is
// excluded. The library file is cached in the OS temp dir between runs.
func BenchmarkSearchHTTPLibrary(b *testing.B) {
	chunks := 100_000
	if testing.Short() {
		chunks = 10_000
	}
	lib := benchLibrary(b, chunks)
	queries := benchQueries(50)
	if resp, err := (realLib{lib}).Search(context.Background(), queries[0], library.SearchOptions{K: 10}); err != nil || len(resp.Results) == 0 {
		b.Fatalf("the benchmark library answers %q with %v, %v: it would measure nothing", queries[0], resp, err)
	}
	benchSearch(b, realLib{lib}, queries)
}
