//go:build cpuprofile

package main

import (
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"
)

// Built with -tags cpuprofile, `mcpvec serve` also writes, when asked,
// what its tail latency is made of (docs/benchmarks/serving-overhead.md,
// session 22):
//
//   - SERVE_RTMETRICS=FILE: every second, one JSON line of the runtime's
//     cumulative metrics (runtime/metrics): the scheduler's latencies (how
//     long goroutines waited runnable), GC pauses, the CPU classes (GC
//     assists, background marking, idle), mutex waits; histograms as
//     counts per bucket upper bound.
//   - SERVE_TRACE=FILE: a runtime/trace execution trace of seconds
//     SERVE_TRACE_FROM to SERVE_TRACE_FROM + SERVE_TRACE_SECONDS (defaults
//     10 and 2) of serve's life.
//   - SERVE_MUTEXPROFILE=FILE: a profile of the mutex contention (every
//     event) of serve's first SERVE_MUTEXPROFILE_SECONDS (default 25).
func init() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		return
	}
	if path := os.Getenv("SERVE_RTMETRICS"); path != "" {
		go writeRuntimeMetrics(path, time.Second)
	}
	if path := os.Getenv("SERVE_TRACE"); path != "" {
		from, span := envSeconds("SERVE_TRACE_FROM", 10), envSeconds("SERVE_TRACE_SECONDS", 2)
		time.AfterFunc(from, func() { traceFor(path, span) })
	}
	if path := os.Getenv("SERVE_MUTEXPROFILE"); path != "" {
		runtime.SetMutexProfileFraction(1)
		time.AfterFunc(envSeconds("SERVE_MUTEXPROFILE_SECONDS", 25), func() { writeProfile("mutex", path) })
	}
}

// writeProfile writes the named runtime/pprof profile to path.
func writeProfile(name, path string) {
	f, err := os.Create(path)
	if err != nil {
		slog.Error("profile", "name", name, "err", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		slog.Error("profile", "name", name, "err", err)
	}
}

// envSeconds is the whole seconds the variable name holds, else def.
func envSeconds(name string, def int) time.Duration {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n <= 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}

// traceFor writes an execution trace of the next span to path.
func traceFor(path string, span time.Duration) {
	f, err := os.Create(path)
	if err != nil {
		slog.Error("trace", "err", err)
		return
	}
	defer f.Close()
	if err := trace.Start(f); err != nil {
		slog.Error("trace", "err", err)
		return
	}
	time.Sleep(span)
	trace.Stop()
}

// writeRuntimeMetrics appends a line of every runtime metric to path each
// period, for as long as the process runs.
func writeRuntimeMetrics(path string, period time.Duration) {
	f, err := os.Create(path)
	if err != nil {
		slog.Error("runtime metrics", "err", err)
		return
	}
	descs := metrics.All()
	samples := make([]metrics.Sample, len(descs))
	for i, d := range descs {
		samples[i].Name = d.Name
	}
	enc := json.NewEncoder(f)
	start := time.Now()
	for {
		metrics.Read(samples)
		line := map[string]any{"t": time.Since(start).Seconds()}
		for _, s := range samples {
			if v, ok := metricValue(s.Value); ok {
				line[s.Name] = v
			}
		}
		if err := enc.Encode(line); err != nil {
			slog.Error("runtime metrics", "err", err)
			return
		}
		time.Sleep(period)
	}
}

// metricValue is v as JSON can carry it: a number, or a histogram's
// non-empty buckets as [upper bound, count] pairs.
func metricValue(v metrics.Value) (any, bool) {
	switch v.Kind() {
	case metrics.KindUint64:
		return v.Uint64(), true
	case metrics.KindFloat64:
		return v.Float64(), true
	case metrics.KindFloat64Histogram:
		h := v.Float64Histogram()
		var out [][2]float64
		for i, n := range h.Counts {
			if n > 0 {
				ub := h.Buckets[i+1]
				if math.IsInf(ub, 1) {
					ub = h.Buckets[i]
				}
				out = append(out, [2]float64{ub, float64(n)})
			}
		}
		return out, true
	}
	return nil, false
}
