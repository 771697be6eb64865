package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	mcpvecserver "github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/store"
)

// overheadRound is one round of the -overhead mode: for each load phase
// (one per -clients count) serve's figures and the CPU the same calls'
// searches took in this process, and a no-op mcp-go server under the
// largest phase's load.
type overheadRound struct {
	Serve []loadFigures `json:"serve"`
	// SearchCPUms is, per phase, the CPU a call's search took when this
	// process ran the phase's queries through the library in-process, one
	// at a time, as serve's search tool calls it (the same queries in the
	// same order, after the same warm-up).
	SearchCPUms []float64   `json:"search_cpu_ms_per_call"`
	Noop        loadFigures `json:"noop"`
}

// overheadMs is a phase's serving overhead: serve's CPU per call less the
// search's.
func (r overheadRound) overheadMs(phase int) float64 {
	return r.Serve[phase].ServeCPUms - r.SearchCPUms[phase]
}

// overhead measures what serve spends on an MCP search call besides the
// search, -overhead rounds of: serve on -library under each load phase,
// the same phases' searches in-process, and a no-op mcp-go server under
// the last phase's load; serve and the no-op server take turns going
// first.
func overhead(ctx context.Context, c config, log io.Writer) ([]overheadRound, error) {
	if c.library == "" {
		return nil, fmt.Errorf("-overhead needs -library")
	}
	dir, err := os.MkdirTemp(c.dir, "mcpvec-scale-overhead-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b, _, err := newBench(ctx, c, dir, log)
	if err != nil {
		return nil, err
	}
	var rounds []overheadRound
	for i := range c.overhead {
		var r overheadRound
		steps := []func() error{
			func() error { return b.overheadServe(ctx, &r) },
			func() error { return b.overheadNoop(ctx, &r) },
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range append(steps, func() error { return b.overheadSearch(ctx, &r) }) {
			if err := step(); err != nil {
				return rounds, fmt.Errorf("round %d: %w", i+1, err)
			}
		}
		rounds = append(rounds, r)
		fmt.Fprintf(log, "round %d: %s\n", i+1, r.summary())
	}
	return rounds, nil
}

// overheadServe puts the load phases on a fresh serve.
func (b *bench) overheadServe(ctx context.Context, r *overheadRound) error {
	s, err := startServe(ctx, b.bin, b.env, b.c.library, 10*time.Minute)
	if err != nil {
		return err
	}
	defer s.Stop()
	for _, n := range b.c.clients {
		f, err := b.measuredLoad(ctx, s, n)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		r.Serve = append(r.Serve, *f)
	}
	return nil
}

// overheadNoop puts the largest load phase on a fresh no-op server.
func (b *bench) overheadNoop(ctx context.Context, r *overheadRound) error {
	s, err := startNoop(ctx, time.Minute)
	if err != nil {
		return err
	}
	defer s.Stop()
	f, err := b.measuredLoad(ctx, s, slices.Max(b.c.clients))
	if err != nil {
		return fmt.Errorf("no-op server: %w", err)
	}
	r.Noop = *f
	return nil
}

// measuredLoad warms s up (the first time), then runs one load phase of
// n clients and reads s's CPU per call.
func (b *bench) measuredLoad(ctx context.Context, s *server, n int) (*loadFigures, error) {
	if _, err := runLoad(ctx, s.url, 1, warmup, b.c.limit, b.queries, b.c.raw()); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	cpu := childproc.CPU(s.Pid())
	f, err := runLoad(ctx, s.url, n, b.c.requests, b.c.limit, b.queries, b.c.raw())
	if err != nil {
		return nil, fmt.Errorf("load with %d clients: %w", n, err)
	}
	if f.Errors > 0 {
		return nil, fmt.Errorf("load with %d clients: %d errors, first: %s", n, f.Errors, f.FirstError)
	}
	f.ServeCPUms = perCall(childproc.CPU(s.Pid())-cpu, f.Requests)
	return f, nil
}

// overheadSearch opens -library read-only as serve does (the offline
// embedder) and, for each phase serve ran, runs that phase's calls'
// queries through it one at a time, after the same warm-up, reading this
// process's CPU.
func (b *bench) overheadSearch(ctx context.Context, r *overheadRound) error {
	db, err := store.Open(b.c.library, &store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	lib, err := openQueryPath(ctx, db)
	if err != nil {
		return err
	}
	opts := library.SearchOptions{K: mcpvecserver.DefaultMaxResults, MaxQueryLen: mcpvecserver.DefaultMaxQueryLen}
	run := func(calls int) (time.Duration, error) {
		t0 := cputime.Process()
		for i := range calls {
			if _, err := lib.Search(ctx, b.queries[i%len(b.queries)], opts); err != nil {
				return 0, fmt.Errorf("search in-process: %w", err)
			}
		}
		return cputime.Process() - t0, nil
	}
	if _, err := run(warmup); err != nil {
		return err
	}
	for _, f := range r.Serve {
		d, err := run(f.Requests)
		if err != nil {
			return err
		}
		r.SearchCPUms = append(r.SearchCPUms, perCall(d, f.Requests))
	}
	return nil
}

// openQueryPath is the query path serve opens on a library of the offline
// embedder (the only one linked in here).
func openQueryPath(ctx context.Context, db *store.DB) (*library.Library, error) {
	meta, err := db.Meta()
	if err != nil {
		return nil, err
	}
	if meta.Embedder == nil {
		return embedded.Open(ctx, db, nil, library.Options{})
	}
	emb, err := embed.Open(ctx, embed.Identity(*meta.Embedder), embed.Options{})
	if err != nil {
		return nil, fmt.Errorf("open the library's embedder (only the offline one is linked in): %w", err)
	}
	return embedded.Open(ctx, db, emb, library.EmbedderOptions(emb))
}

// summary is one line of the round's figures for the log.
func (r overheadRound) summary() string {
	last := len(r.Serve) - 1
	f := r.Serve[last]
	return fmt.Sprintf("%d clients: serve %.0f req/s, p99 %.2f ms, CPU %.3f ms/call, search %.3f, overhead %.3f; no-op %.0f req/s, CPU %.3f ms/call; capacity %.2f×",
		f.Clients, f.PerSecond, f.P99ms, f.ServeCPUms, r.SearchCPUms[last], r.overheadMs(last), r.Noop.PerSecond, r.Noop.ServeCPUms, f.PerSecond/r.Noop.PerSecond)
}

// overheadColumns are the -overhead table's figures of one phase of a
// round, in the order of overheadMarkdown's heading.
func overheadColumns(r overheadRound, phase int) []float64 {
	f := r.Serve[phase]
	queue := float64(f.Clients) / f.PerSecond * 1000 // ms a call waits and runs, by Little's law
	return []float64{f.PerSecond, f.P50ms, f.P99ms, f.ServeCPUms, r.SearchCPUms[phase], r.overheadMs(phase),
		r.Noop.PerSecond, r.Noop.ServeCPUms, f.PerSecond / r.Noop.PerSecond, f.P99ms / queue}
}

// overheadMarkdown prints a table per load phase: a line per round and
// the medians.
func overheadMarkdown(c config, rounds []overheadRound, out io.Writer) {
	if len(rounds) == 0 {
		return
	}
	fmt.Fprintf(out, "\n## serving overhead: %s, %d calls a phase, %d rounds\n", c.library, c.requests, len(rounds))
	for phase, n := range c.clients {
		fmt.Fprintf(out, "\n%d client(s); no-op mcp-go server at %d clients\n\n", n, slices.Max(c.clients))
		fmt.Fprintln(out, "| round | req/s | p50 ms | p99 ms | serve CPU ms/call | search CPU ms/call | overhead ms/call | no-op req/s | no-op CPU ms/call | capacity × no-op | p99 ÷ (clients ÷ req/s) |")
		fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
		cols := make([][]float64, 10)
		for i, r := range rounds {
			line := fmt.Sprintf("| %d |", i+1)
			for j, v := range overheadColumns(r, phase) {
				cols[j] = append(cols[j], v)
				line += " " + overheadCell(j, v) + " |"
			}
			fmt.Fprintln(out, line)
		}
		line := "| median |"
		for j, vs := range cols {
			line += " " + overheadCell(j, median(vs)) + " |"
		}
		fmt.Fprintln(out, line)
	}
}

// overheadCell formats column j of overheadColumns.
func overheadCell(j int, v float64) string {
	switch j {
	case 0, 6:
		return fmt.Sprintf("%.0f", v)
	case 1, 2:
		return fmt.Sprintf("%.2f", v)
	case 8, 9:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// median is the middle of vs (the mean of the two middle ones when even).
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
