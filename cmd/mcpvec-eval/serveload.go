package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

func cpus() int { return runtime.NumCPU() }

// latencies are the durations of MCP search calls.
type latencies []time.Duration

// String is "p50 / p99" in milliseconds.
func (l latencies) String() string {
	if len(l) == 0 {
		return "-"
	}
	s := slices.Clone(l)
	slices.Sort(s)
	q := func(p float64) float64 {
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	return fmt.Sprintf("%.0f / %.0f", q(0.50), q(0.99))
}

// measureServe starts `mcpvec serve` on the library, runs every query
// through one MCP client (latency and the TREC run scored for nDCG@10),
// then through c.clients clients at once sharing the queries, and stops
// the server. backend are the Weaviate nodes' process ids (none for the
// embedded library).
func measureServe(ctx context.Context, c config, r sideResult, bin, dir string, lib []string, base string, queries []query, docOf map[string]string, backend []int) (sideResult, error) {
	endpoint, pid, stop, err := startServe(ctx, bin, dir, lib)
	if err != nil {
		return r, err
	}
	defer stop()
	runPath := filepath.Join(dir, "mcp-search.trec")
	if r.one, err = searchLoad(ctx, endpoint, queries, 1, docOf, runPath); err != nil {
		return r, err
	}
	scores, err := score(c, filepath.Join(base, "qrels.tsv"), runPath)
	if err != nil {
		return r, err
	}
	r.ndcg, r.mrr = scores["ndcg@10"], scores["mrr@10"]
	pids := append(backend, pid)
	cpu := childproc.CPU(pids...)
	r.many, err = searchLoad(ctx, endpoint, queries, max(c.clients, 1), nil, "")
	if after := childproc.CPU(pids...); cpu > 0 && after > cpu {
		r.searchCPU = after - cpu
	}
	return r, err
}

// startServe runs `mcpvec serve` on a free loopback port and returns its
// MCP endpoint, its process id, and a function that stops it and keeps its
// stderr in serve.log under dir.
func startServe(ctx context.Context, bin, dir string, lib []string) (string, int, func(), error) {
	p, endpoint, err := childproc.StartServe(ctx, bin, childproc.Env(dir), 2*time.Minute, lib...)
	if err != nil {
		return "", 0, nil, err
	}
	stop := func() {
		p.Stop()
		os.WriteFile(filepath.Join(dir, "serve.log"), []byte(p.Stderr.String()), 0o644)
	}
	return endpoint, p.Pid(), stop, nil
}

// searchLoad runs every query once through n MCP clients sharing them and
// returns each call's latency. With a run path, it also writes the results
// as a TREC run (docOf maps document ids to collection ids).
func searchLoad(ctx context.Context, endpoint string, queries []query, n int, docOf map[string]string, runPath string) (latencies, error) {
	work := make(chan query)
	var (
		mu    sync.Mutex
		lats  latencies
		lines []string
		first error
	)
	var wg sync.WaitGroup
	for range n {
		cl, err := mcpClient(ctx, endpoint)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range work {
				start := time.Now()
				ids, err := mcpSearch(ctx, cl, q.Text)
				took := time.Since(start)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("query %s: %w", q.ID, err)
				}
				lats = append(lats, took)
				for i, id := range ids {
					lines = append(lines, fmt.Sprintf("%s Q0 %s %d %d mcpvec-mcp", q.ID, docOf[id], i+1, len(ids)-i))
				}
				mu.Unlock()
			}
		}()
	}
	for _, q := range queries {
		work <- q
	}
	close(work)
	wg.Wait()
	if first != nil || runPath == "" {
		return lats, first
	}
	return lats, os.WriteFile(runPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func mcpClient(ctx context.Context, endpoint string) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP(endpoint)
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpvec-eval", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// mcpSearch calls the search tool and returns the document id of each
// result, in order ("doc:index" ids).
func mcpSearch(ctx context.Context, c *client.Client, q string) ([]string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": q}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("search tool error: %v", res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var out struct {
		Results []struct{ ID string } `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	ids := make([]string, len(out.Results))
	for i, r := range out.Results {
		ids[i], _, _ = strings.Cut(r.ID, ":")
	}
	return ids, nil
}
