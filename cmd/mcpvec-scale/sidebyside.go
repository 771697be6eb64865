package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
)

// sideRow is one library's line of the side-by-side table.
type sideRow struct {
	nodes      int     // Weaviate nodes (replication factor); 0: the embedded file
	fill       string  // how the library was filled: "ingest" or "migrate --to"
	passages   int     // passages in the library
	fillRate   float64 // passages/s of the fill
	ingestN    int     // Weaviate: passages of the separate ingest measurement
	ingestRate float64
	load       []loadFigures
	cpuMs      []float64 // CPU ms (serve + nodes) per search of each load phase
}

// nodeSettings are the Weaviate nodes' settings beyond weaviatetest's:
// memtables written out after 5 s without writes, since Weaviate's BM25
// lags the writes until then (README, "Scaling out").
var nodeSettings = []string{"PERSISTENCE_MEMTABLES_FLUSH_IDLE_AFTER_SECONDS=5"}

// sideBySide builds the corpus into an embedded library (timing the
// ingest), copies it into a one-node and a three-node Weaviate (replication
// 3) with `mcpvec migrate --to` (timing the copy), times an ingest of the
// first -weaviate-ingest passages' files into each Weaviate as well, and
// puts the same MCP search load on `mcpvec serve` over each library.
func sideBySide(ctx context.Context, c config, log io.Writer) ([]sideRow, error) {
	dir, err := os.MkdirTemp(c.dir, "mcpvec-scale-side-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b, base, err := newBench(ctx, c, dir, log)
	if err != nil {
		return nil, err
	}
	b.db = filepath.Join(dir, "library.db")
	b.r = &results{}
	corpus := filepath.Join(dir, "corpus")
	if err := b.buildLibrary(ctx, base, corpus); err != nil {
		return nil, err
	}
	var rows []sideRow
	for _, n := range c.setups {
		r, err := b.sideSetup(ctx, n, corpus, filepath.Join(dir, "weaviate"+strconv.Itoa(n)))
		if err != nil {
			return rows, fmt.Errorf("%d nodes: %w", n, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// sideSetup fills and measures one library: the embedded file built
// already, or a Weaviate cluster of n nodes started under dir.
func (b *bench) sideSetup(ctx context.Context, n int, corpus, dir string) (sideRow, error) {
	r := sideRow{nodes: n, fill: "ingest", passages: b.r.Ingest.Passages, fillRate: b.r.Ingest.PerSecond}
	lib := []string{"--db", b.db}
	var cl *weaviatetest.Cluster
	if n > 0 {
		var err error
		if cl, err = weaviatetest.Launch(dir, weaviatetest.Options{Nodes: n, Env: nodeSettings}); err != nil {
			return r, err
		}
		defer cl.Stop()
		if lib, err = b.fillWeaviate(ctx, &r, cl, corpus); err != nil {
			return r, err
		}
	}
	s, err := startServeOn(ctx, b.bin, b.env, lib, 10*time.Minute)
	if err != nil {
		return r, err
	}
	defer s.Stop()
	if _, err := runLoad(ctx, s.url, 1, warmup, b.c.limit, b.queries, b.c.raw()); err != nil {
		return r, fmt.Errorf("warm-up: %w", err)
	}
	cpu := func() time.Duration { return childproc.CPU(append(cl.PIDs(), s.Pid())...) }
	for _, clients := range b.c.clients {
		before := cpu()
		f, err := runLoad(ctx, s.url, clients, b.c.requests, b.c.limit, b.queries, b.c.raw())
		if err != nil {
			return r, fmt.Errorf("load with %d clients: %w", clients, err)
		}
		fmt.Fprintf(b.log, "%d nodes, %d clients: %.0f req/s, p50 %.1f ms, p99 %.1f ms, %d errors\n", n, clients, f.PerSecond, f.P50ms, f.P99ms, f.Errors)
		r.load = append(r.load, *f)
		r.cpuMs = append(r.cpuMs, float64((cpu()-before).Microseconds())/1000/float64(max(f.Requests, 1)))
	}
	return r, nil
}

// fillWeaviate times an ingest of the corpus' first folders into one
// collection, then copies the embedded library into another with
// `mcpvec migrate --to`, which the searches use; it returns that library's
// flags.
func (b *bench) fillWeaviate(ctx context.Context, r *sideRow, cl *weaviatetest.Cluster, corpus string) ([]string, error) {
	repl := []string{"--replicas", strconv.Itoa(len(cl.Nodes))}
	if folders := int(math.Ceil(float64(b.c.wvIngest) / (filesPerFolder * passagesPerFile))); folders > 0 {
		args := append([]string{"ingest", "--store", cl.URL(0, "Ingest")}, repl...)
		if b.c.dimensions > 0 {
			args = append(args, "--dimensions", strconv.Itoa(b.c.dimensions))
		}
		for i := range folders {
			if p := filepath.Join(corpus, fmt.Sprintf("%04d", i)); dirExists(p) {
				args = append(args, p)
			}
		}
		fmt.Fprintf(b.log, "%s %v\n", b.bin, args)
		res, err := runChild(ctx, b.bin, b.env, args...)
		if err != nil {
			return nil, err
		}
		if r.ingestN, err = ingestedPassages(res.Stdout); err != nil {
			return nil, err
		}
		r.ingestRate = float64(r.ingestN) / res.Wall.Seconds()
	}
	url := cl.URL(0, "Library")
	args := append([]string{"migrate", "--db", b.db, "--to", url}, repl...)
	fmt.Fprintf(b.log, "%s %v\n", b.bin, args)
	res, err := runChild(ctx, b.bin, b.env, args...)
	if err != nil {
		return nil, err
	}
	r.fill, r.fillRate = "migrate --to", float64(r.passages)/res.Wall.Seconds()
	time.Sleep(b.c.settle)
	return []string{"--store", url}, nil
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// sideMarkdown prints the side-by-side table.
func sideMarkdown(c config, rows []sideRow, out io.Writer) {
	fmt.Fprintf(out, "\n## side by side: %d passages asked for (seed %d), %d CPUs, shared machine\n\n", c.passages, c.seed, runtime.NumCPU())
	head := "| library | passages | filled by | fill passages/s | Weaviate ingest passages/s |"
	sep := "|---|---|---|---|---|"
	for _, n := range c.clients {
		head += fmt.Sprintf(" %d client(s): p50 / p99 ms, req/s, CPU ms/search |", n)
		sep += "---|"
	}
	fmt.Fprintln(out, head)
	fmt.Fprintln(out, sep)
	names := map[int]string{0: "embedded (bbolt file)", 1: "Weaviate, 1 node"}
	for _, r := range rows {
		name, ok := names[r.nodes]
		if !ok {
			name = fmt.Sprintf("Weaviate, %d nodes, replication %d", r.nodes, r.nodes)
		}
		ingest := "-"
		if r.ingestN > 0 {
			ingest = fmt.Sprintf("%.0f (%d passages)", r.ingestRate, r.ingestN)
		}
		line := fmt.Sprintf("| %s | %d | %s | %.0f | %s |", name, r.passages, r.fill, r.fillRate, ingest)
		for i, f := range r.load {
			line += fmt.Sprintf(" %.1f / %.1f, %.0f, %.1f |", f.P50ms, f.P99ms, f.PerSecond, r.cpuMs[i])
		}
		fmt.Fprintln(out, line)
	}
}

// parseSetups reads -setups: node counts out of 0, 1 and 3.
func parseSetups(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || (n != 0 && n != 1 && n != 3) {
			return nil, fmt.Errorf("-setups %q: want node counts out of 0 (embedded), 1 and 3, separated by commas", list)
		}
		out = append(out, n)
	}
	return out, nil
}
