package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/internal/evalset"
)

// warmup search calls go to a fresh server before the load phases and are
// not counted.
const warmup = 50

// run measures every phase and returns the figures. Progress goes to log.
func run(ctx context.Context, c config, log io.Writer) (*results, error) {
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mcpvec-scale-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	b, base, err := newBench(ctx, c, dir, log)
	if err != nil {
		return nil, err
	}
	b.db = c.library
	b.r = &results{Label: c.label, Binary: b.bin, Date: time.Now().UTC().Format(time.RFC3339), CPUs: runtime.NumCPU(), Dimensions: c.dimensions, RSSAfter: c.rssAfter}
	if b.db == "" {
		b.db = filepath.Join(dir, "library.db")
		if err := b.buildLibrary(ctx, base, filepath.Join(dir, "corpus")); err != nil {
			return nil, err
		}
	}
	b.r.Library = b.db
	for _, phase := range []func(context.Context) error{b.measureServe, b.measureCLI, b.libraryInfo} {
		if err := phase(ctx); err != nil {
			return nil, err
		}
	}
	return b.r, nil
}

// newBench prepares a run in dir: the children's runtime folder and
// environment, the binary, and SciFact's claims as queries (from the
// collection in base, which it returns).
func newBench(ctx context.Context, c config, dir string, log io.Writer) (*bench, string, error) {
	rt := filepath.Join(dir, "run")
	if err := os.MkdirAll(rt, 0o700); err != nil {
		return nil, "", err
	}
	bin, err := binary(ctx, c, dir, log)
	if err != nil {
		return nil, "", err
	}
	base := filepath.Join(c.shared, "eval", "scifact")
	_, queries, err := evalset.Load(base)
	if err != nil {
		return nil, "", fmt.Errorf("queries: %w", err)
	}
	return &bench{c: c, bin: bin, env: childproc.Env(rt), queries: claims(queries), log: log}, base, nil
}

// bench is one run: its settings, the binary and environment of the
// children, the library, the queries, and the figures so far.
type bench struct {
	c       config
	bin     string
	env     []string
	db      string
	queries []string
	log     io.Writer
	r       *results
}

// binary is -bin, or ./cmd/mcpvec of -src built into dir.
func binary(ctx context.Context, c config, dir string, log io.Writer) (string, error) {
	if c.bin != "" {
		return c.bin, nil
	}
	fmt.Fprintf(log, "building mcpvec from %s\n", c.src)
	return childproc.Build(ctx, c.src, dir)
}

func claims(qs []evalset.Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Text
	}
	return out
}

// buildLibrary generates the corpus in folder corpus from the collection
// in base and ingests it into b.db.
func (b *bench) buildLibrary(ctx context.Context, base, corpus string) error {
	c, r, log := b.c, b.r, b.log
	p, err := loadPool(base)
	if err != nil {
		return err
	}
	files := max(1, int(float64(c.passages)/passagesPerFile+0.5))
	fmt.Fprintf(log, "generating %d files (seed %d) in %s\n", files, c.seed, corpus)
	t0 := time.Now()
	if err := os.RemoveAll(corpus); err != nil {
		return err
	}
	if err := p.writeCorpus(ctx, corpus, c.seed, files, runtime.NumCPU()); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	r.Generate = &genFigures{Files: files, Seconds: time.Since(t0).Seconds(), Seed: c.seed}
	os.Remove(b.db)
	args := []string{"ingest", "--db", b.db}
	if c.dimensions > 0 {
		args = append(args, "--dimensions", strconv.Itoa(c.dimensions))
	}
	fmt.Fprintf(log, "%s %v\n", b.bin, append(args, corpus))
	res, err := runChild(ctx, b.bin, b.env, append(args, corpus)...)
	if err != nil {
		return err
	}
	n, err := ingestedPassages(res.Stdout)
	if err != nil {
		return err
	}
	r.Ingest = &ingestFigures{Passages: n, Seconds: res.Wall.Seconds(), PerSecond: float64(n) / res.Wall.Seconds(), PeakRSS: res.PeakRSS, PeakAnon: res.PeakAnon}
	return nil
}

// measureServe starts the server c.starts times (the first start may
// upgrade the library), and puts the search load on the last one.
func (b *bench) measureServe(ctx context.Context) error {
	c, r, log := b.c, b.r, b.log
	var s *server
	for i := range c.starts {
		if s != nil {
			s.Stop()
		}
		var err error
		pages := childproc.PageProbe()
		if s, err = startServe(ctx, b.bin, b.env, b.db, 10*time.Minute); err != nil {
			return err
		}
		st := startFigures{ReadyMs: float64(s.ready.Microseconds()) / 1000, FreshPageUs: pages, ReadyCPUms: perCall(childproc.CPU(s.Pid()), 1)}
		st.RSSAfterLoad, _, _ = childproc.Memory(s.Pid())
		st.Breakdown, _ = readBreakdown(s.Pid())
		if f, err := runLoad(ctx, s.url, 1, 1, c.limit, b.queries, c.raw()); err == nil && f.Errors == 0 {
			st.FirstSearchMs = f.Maxms
		}
		fmt.Fprintf(log, "serve start %d: ready %.0f ms, CPU %.0f ms, RSS %s (fresh memory %.2f µs a page), first search %.1f ms\n", i+1, st.ReadyMs, st.ReadyCPUms, mib(st.RSSAfterLoad), pages, st.FirstSearchMs)
		if c.rssAfter > 0 {
			time.Sleep(c.rssAfter)
			st.RSSLater, _, _ = childproc.Memory(s.Pid())
			st.LaterBreakdown, _ = readBreakdown(s.Pid())
			fmt.Fprintf(log, "serve start %d: RSS %s after ready %s\n", i+1, c.rssAfter, mib(st.RSSLater))
		}
		r.Starts = append(r.Starts, st)
	}
	defer s.Stop()
	if _, err := runLoad(ctx, s.url, 1, warmup, c.limit, b.queries, c.raw()); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	peak := childproc.SampleMemory(s.Pid(), 50*time.Millisecond)
	for _, n := range c.clients {
		probe := childproc.Probe()
		cpu, self := childproc.CPU(s.Pid()), childproc.CPU(os.Getpid())
		host, hostErr := childproc.ReadHostCPU()
		f, err := runLoad(ctx, s.url, n, c.requests, c.limit, b.queries, c.raw())
		if err != nil {
			peak()
			return fmt.Errorf("load with %d clients: %w", n, err)
		}
		serveCPU, harnessCPU := childproc.CPU(s.Pid())-cpu, childproc.CPU(os.Getpid())-self
		f.ServeCPUms = perCall(serveCPU, f.Requests)
		f.HarnessCPUms = perCall(harnessCPU, f.Requests)
		var sh childproc.HostShares
		if now, err := childproc.ReadHostCPU(); err == nil && hostErr == nil {
			sh = now.Shares(host, serveCPU+harnessCPU)
		}
		sh.Probe = [2]float64{probe, childproc.Probe()}
		f.Host = &sh
		fmt.Fprintf(log, "%d clients: %.0f req/s, p50 %.2f ms, p99 %.2f ms, serve CPU %.2f ms/call, harness CPU %.2f ms/call, %d errors%s\n", n, f.PerSecond, f.P50ms, f.P99ms, f.ServeCPUms, f.HarnessCPUms, f.Errors, f.Host.String())
		r.Load = append(r.Load, *f)
	}
	p := peak()
	r.RSSUnderLoad, r.AnonUnderLoad = p.RSS, p.Anon
	r.AfterLoad, _ = readBreakdown(s.Pid())
	_, r.ServeHWM, _ = childproc.Memory(s.Pid())
	return nil
}

// measureCLI times `mcpvec search` end to end, once per query, with no
// server holding the library.
func (b *bench) measureCLI(ctx context.Context) error {
	r := b.r
	var ms []float64
	for i := range b.c.cliRuns {
		res, err := runChild(ctx, b.bin, b.env, "search", "--db", b.db, "-k", "10", b.queries[(i*37)%len(b.queries)])
		if err != nil {
			return err
		}
		ms = append(ms, float64(res.Wall.Microseconds())/1000)
		r.CLIPeakRSS = max(r.CLIPeakRSS, res.PeakRSS)
	}
	r.CLISearchMs = ms
	sorted := slices.Sorted(slices.Values(ms))
	r.CLIMedianMs = sorted[len(sorted)/2]
	fmt.Fprintf(b.log, "CLI search: median %.0f ms of %v\n", r.CLIMedianMs, ms)
	return nil
}

// libraryInfo records the library's passage count and file size.
func (b *bench) libraryInfo(ctx context.Context) error {
	r := b.r
	fi, err := os.Stat(b.db)
	if err != nil {
		return err
	}
	r.FileBytes = fi.Size()
	res, err := runChild(ctx, b.bin, b.env, "info", "--db", b.db)
	if err != nil {
		return err
	}
	r.Info = res.Stdout
	r.Passages, err = infoPassages(res.Stdout)
	return err
}

// perCall is d in milliseconds per one of n calls.
func perCall(d time.Duration, n int) float64 {
	return float64(d.Microseconds()) / 1000 / float64(max(n, 1))
}
