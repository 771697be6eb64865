package library_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// BenchmarkOpen measures what a library of synthetic passages costs once
// loaded: open-s (store.Open plus embedded.Open, the indexes read back),
// heap-MB (HeapInuse after GC), rss-MB (VmRSS, bbolt's mapped pages
// included) and the search latency through the library (k 10, 500
// queries, one goroutine) in vector and hybrid mode, wall and process CPU
// (the median of the CPU each query took, getrusage's resolution
// permitting). MCPVEC_BENCH_DIM sets
// the offline embedder's dimensions (default: its default). The library is
// built on first use (cached in the temp dir, as BenchmarkSearch's); that
// run only builds, so that the measuring process starts clean:
//
//	MCPVEC_BENCH_LARGE=1 MCPVEC_BENCH_DIM=256 go test -run '^$' -bench Open -benchtime 1x ./library/
//
// (run twice: the first run builds). Each size runs once whatever b.N is.
// MCPVEC_BENCH_LIBRARY=path measures that library instead (made with the
// offline embedder at MCPVEC_BENCH_DIM dimensions; opening it may upgrade
// it, so pass a copy).
func BenchmarkOpen(b *testing.B) {
	cfg := embed.DefaultHashConfig()
	if v, err := strconv.Atoi(os.Getenv("MCPVEC_BENCH_DIM")); err == nil && v > 0 {
		cfg.Dimensions = v
	}
	emb := embed.NewHash(cfg)
	if path := os.Getenv("MCPVEC_BENCH_LIBRARY"); path != "" {
		b.Run(fmt.Sprintf("library/d=%d", cfg.Dimensions), func(b *testing.B) {
			for unit, v := range openRun(b, path, emb) {
				b.ReportMetric(v, unit)
			}
		})
		return
	}
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("n=%d/d=%d", n, cfg.Dimensions), func(b *testing.B) {
			id := emb.Identity()
			path := filepath.Join(os.TempDir(), fmt.Sprintf("mcpvec-bench-library-%d-%s-%d.db", n, id.Model, id.Dimensions))
			if _, err := os.Stat(path); err != nil {
				buildBenchLib(b, path+".tmp", n, emb)
				if err := os.Rename(path+".tmp", path); err != nil {
					b.Fatal(err)
				}
				b.Skip("built the library; run again to measure in a clean process")
			}
			for unit, v := range openRun(b, path, emb) {
				b.ReportMetric(v, unit)
			}
		})
	}
}

func openRun(b *testing.B, path string, emb *embed.Hash) map[string]float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	start := time.Now()
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var log strings.Builder
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := library.EmbedderOptions(emb) // as mcpvec configures it
	opts.Logger = logger
	lib, err := embedded.Open(context.Background(), db, emb, opts)
	if err != nil {
		b.Fatal(err)
	}
	m := map[string]float64{"open-s": time.Since(start).Seconds()}
	b.Log(log.String()) // how long each index took to load
	runtime.GC()
	runtime.ReadMemStats(&ms)
	m["heap-MB"] = float64(ms.HeapInuse-base) / (1 << 20)
	m["rss-MB"] = rssMB(b)
	r := rand.New(rand.NewPCG(9, 9))
	queries := make([]string, 500)
	for i := range queries {
		queries[i] = benchText(r, 3+r.IntN(5))
	}
	for _, mode := range []library.Mode{library.Vector, library.Hybrid} {
		var ds, cs []time.Duration
		for _, q := range queries {
			t0, c0 := time.Now(), cputime.Process()
			if _, err := lib.Search(context.Background(), q, library.SearchOptions{K: 10, Mode: mode}); err != nil {
				b.Fatal(err)
			}
			ds, cs = append(ds, time.Since(t0)), append(cs, cputime.Process()-c0)
		}
		slices.Sort(ds)
		slices.Sort(cs)
		m[string(mode)+"-p50-us"] = float64(ds[len(ds)/2].Microseconds())
		m[string(mode)+"-p99-us"] = float64(ds[len(ds)*99/100].Microseconds())
		m[string(mode)+"-cpu-p50-us"] = float64(cs[len(cs)/2].Microseconds())
	}
	m["rss-after-queries-MB"] = rssMB(b)
	b.Log(log.String()) // now with the deferred vector index's load time
	return m
}

// rssMB reads VmRSS from /proc/self/status (0 where there is none).
func rssMB(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	return 0
}
