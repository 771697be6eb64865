package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
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
	// at a time, as serve's search tool calls it (the same queries, in
	// turns with serve's: see overheadChunk).
	SearchCPUms []float64 `json:"search_cpu_ms_per_call"`
	// Service is, per phase, the spread of those in-process searches:
	// each one's CPU (its thread's) and wall time.
	Service []serviceFigures `json:"service"`
	Noop    loadFigures      `json:"noop"`
}

// serviceFigures is the spread of a phase's searches run in-process one
// at a time: the service time a call needs with no queue, by its CPU
// (the searching thread's clock, which a busy host does not stretch) and
// by the wall clock (which it does).
type serviceFigures struct {
	CPUMeanms  float64 `json:"cpu_mean_ms"`
	CPUP50ms   float64 `json:"cpu_p50_ms"`
	CPUP99ms   float64 `json:"cpu_p99_ms"`
	WallMeanms float64 `json:"wall_mean_ms"`
	WallP50ms  float64 `json:"wall_p50_ms"`
	WallP99ms  float64 `json:"wall_p99_ms"`
	// FIFOTail is p99 ÷ (clients ÷ rate) of a closed loop of the phase's
	// clients on this machine's CPUs, first come first served, with these
	// searches' CPU plus the phase's overhead per call as service times
	// (fifoTail): the tail queueing alone gives.
	FIFOTail float64 `json:"fifo_tail"`
}

// overheadChunk is how many calls serve answers before this process runs
// the same queries' searches, in turns through a load phase: the host's
// speed on this shared machine changes within seconds, and both figures
// of a phase then see the same spells.
const overheadChunk = 500

// overheadMs is a phase's serving overhead: serve's CPU per call less the
// search's.
func (r overheadRound) overheadMs(phase int) float64 {
	return r.Serve[phase].ServeCPUms - r.SearchCPUms[phase]
}

// overhead measures what serve spends on an MCP search call besides the
// search, -overhead rounds of: serve (read-only) on -library under each
// load phase, in turns with the same searches in-process on the same
// file, and a no-op mcp-go server under the last phase's load; serve and
// the no-op server take turns going first.
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
		for _, step := range steps {
			if err := step(); err != nil {
				return rounds, fmt.Errorf("round %d: %w", i+1, err)
			}
		}
		rounds = append(rounds, r)
		fmt.Fprintf(log, "round %d: %s\n", i+1, r.summary())
	}
	return rounds, nil
}

// overheadServe puts the load phases on a fresh read-only serve, in turns
// with the same searches in-process on the same library file.
func (b *bench) overheadServe(ctx context.Context, r *overheadRound) error {
	s, err := startServeOn(ctx, b.bin, b.env, []string{"--db", b.c.library, "--read-only"}, 10*time.Minute)
	if err != nil {
		return err
	}
	defer s.Stop()
	db, err := store.Open(b.c.library, &store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	lib, err := openQueryPath(ctx, db)
	if err != nil {
		return err
	}
	if _, err := runLoad(ctx, s.url, 1, warmup, b.c.limit, b.queries, b.c.raw()); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	var warm searchRun
	if err := warm.add(ctx, lib, b.queries[:min(warmup, len(b.queries))]); err != nil {
		return err
	}
	for _, n := range b.c.clients {
		f, search, service, err := b.interleaved(ctx, s, lib, n)
		if err != nil {
			return fmt.Errorf("serve, %d clients: %w", n, err)
		}
		r.Serve = append(r.Serve, *f)
		r.SearchCPUms = append(r.SearchCPUms, search)
		r.Service = append(r.Service, service)
	}
	return nil
}

// interleaved runs one load phase of n clients on s in chunks of
// overheadChunk calls, each followed by the same queries' searches on lib
// in this process; it returns the phase's figures (serve's CPU per call
// in them), the searches' CPU per call and their spread.
func (b *bench) interleaved(ctx context.Context, s *server, lib *library.Library, n int) (*loadFigures, float64, serviceFigures, error) {
	l, err := openLoad(ctx, s.url, n, b.c.raw())
	if err != nil {
		return nil, 0, serviceFigures{}, err
	}
	defer l.Close()
	var calls []callTime
	var wall, serveCPU time.Duration
	var searches searchRun
	deadline := time.Now().Add(b.c.limit)
	for done := 0; done < b.c.requests && time.Now().Before(deadline); {
		qs := make([]string, min(overheadChunk, b.c.requests-done))
		for j := range qs {
			qs[j] = b.queries[(done+j)%len(b.queries)]
		}
		cpu := childproc.CPU(s.Pid())
		f := l.run(ctx, len(qs), time.Until(deadline), qs)
		serveCPU += childproc.CPU(s.Pid()) - cpu
		if f.Errors > 0 {
			return nil, 0, serviceFigures{}, fmt.Errorf("%d errors, first: %s", f.Errors, f.FirstError)
		}
		if err := searches.add(ctx, lib, qs[:f.Requests]); err != nil {
			return nil, 0, serviceFigures{}, err
		}
		calls, wall, done = append(calls, f.calls...), wall+time.Duration(f.Seconds*float64(time.Second)), done+f.Requests
	}
	f := summarise(calls, wall)
	f.Clients, f.ServeCPUms = n, perCall(serveCPU, f.Requests)
	search := perCall(searches.process, f.Requests)
	sv := searches.figures()
	sv.FIFOTail = fifoTail(searches.withOverhead(f.ServeCPUms-search), n, runtime.NumCPU())
	return f, search, sv, nil
}

// searchRun is what running queries through a library in-process took:
// the process's CPU, and each search's CPU and wall time.
type searchRun struct {
	process    time.Duration
	cpu, walls []time.Duration
}

// add runs each query through lib as serve's search tool does, one at a
// time on a pinned thread, and adds what they took to r.
func (r *searchRun) add(ctx context.Context, lib *library.Library, queries []string) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	opts := library.SearchOptions{K: mcpvecserver.DefaultMaxResults, MaxQueryLen: mcpvecserver.DefaultMaxQueryLen}
	p0 := cputime.Process()
	for _, q := range queries {
		t0, w0 := cputime.Thread(), time.Now()
		if _, err := lib.Search(ctx, q, opts); err != nil {
			return fmt.Errorf("search in-process: %w", err)
		}
		r.cpu, r.walls = append(r.cpu, cputime.Thread()-t0), append(r.walls, time.Since(w0))
	}
	r.process += cputime.Process() - p0
	return nil
}

// figures is the spread of r's searches.
func (r *searchRun) figures() serviceFigures {
	if len(r.cpu) == 0 {
		return serviceFigures{}
	}
	mean := func(ds []time.Duration) float64 {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		return ms(sum) / float64(len(ds))
	}
	cpu, walls := slices.Sorted(slices.Values(r.cpu)), slices.Sorted(slices.Values(r.walls))
	q := func(ds []time.Duration, p int) float64 { return ms(ds[min(len(ds)-1, len(ds)*p/100)]) }
	return serviceFigures{CPUMeanms: mean(cpu), CPUP50ms: q(cpu, 50), CPUP99ms: q(cpu, 99),
		WallMeanms: mean(walls), WallP50ms: q(walls, 50), WallP99ms: q(walls, 99)}
}

// withOverhead is r's searches' CPU times, in the order they ran, each
// with overheadMs added (not below zero).
func (r *searchRun) withOverhead(overheadMs float64) []time.Duration {
	out := make([]time.Duration, len(r.cpu))
	for i, d := range r.cpu {
		out[i] = max(0, d+time.Duration(overheadMs*float64(time.Millisecond)))
	}
	return out
}

// overheadNoop puts the largest load phase on a fresh no-op server.
func (b *bench) overheadNoop(ctx context.Context, r *overheadRound) error {
	s, err := startNoop(ctx, time.Minute)
	if err != nil {
		return err
	}
	defer s.Stop()
	if _, err := runLoad(ctx, s.url, 1, warmup, b.c.limit, b.queries, b.c.raw()); err != nil {
		return fmt.Errorf("no-op server: warm-up: %w", err)
	}
	n := slices.Max(b.c.clients)
	cpu := childproc.CPU(s.Pid())
	f, err := runLoad(ctx, s.url, n, b.c.requests, b.c.limit, b.queries, b.c.raw())
	if err != nil {
		return fmt.Errorf("no-op server: load with %d clients: %w", n, err)
	}
	if f.Errors > 0 {
		return fmt.Errorf("no-op server: %d errors, first: %s", f.Errors, f.FirstError)
	}
	f.ServeCPUms = perCall(childproc.CPU(s.Pid())-cpu, f.Requests)
	r.Noop = *f
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

// summary is the round's figures for the log, a line a phase.
func (r overheadRound) summary() string {
	var lines []string
	for phase := range r.Serve {
		lines = append(lines, r.phaseSummary(phase))
	}
	return strings.Join(lines, "\n  ")
}

// phaseSummary is one line of a phase's figures.
func (r overheadRound) phaseSummary(last int) string {
	f := r.Serve[last]
	sv := r.Service[last]
	return fmt.Sprintf("%d clients: serve %.0f req/s, p50 %.2f ms, p99 %.2f ms (p99 ÷ (clients ÷ rate) %.2f, queueing alone %.2f), CPU %.3f ms/call, search %.3f (one search's CPU: mean %.3f, p50 %.3f, p99 %.3f; wall mean %.3f, p50 %.3f, p99 %.3f), overhead %.3f; no-op %.0f req/s, CPU %.3f ms/call; capacity %.2f×",
		f.Clients, f.PerSecond, f.P50ms, f.P99ms, f.P99ms*f.PerSecond/float64(f.Clients)/1000, sv.FIFOTail, f.ServeCPUms, r.SearchCPUms[last],
		sv.CPUMeanms, sv.CPUP50ms, sv.CPUP99ms, sv.WallMeanms, sv.WallP50ms, sv.WallP99ms,
		r.overheadMs(last), r.Noop.PerSecond, r.Noop.ServeCPUms, f.PerSecond/r.Noop.PerSecond)
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

// writeOverheadLatencies writes every serve call of rounds to path as
// writeLatencies does, when path is not "".
func writeOverheadLatencies(path string, rounds []overheadRound) error {
	if path == "" {
		return nil
	}
	var phases []loadFigures
	for _, r := range rounds {
		phases = append(phases, r.Serve...)
	}
	return writeLatencies(path, phases)
}
