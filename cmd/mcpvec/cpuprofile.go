//go:build cpuprofile

package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

// Built with -tags cpuprofile, `mcpvec serve` writes a CPU profile of its
// first SERVE_CPUPROFILE_SECONDS seconds (default 20) to the file
// SERVE_CPUPROFILE names, when set: how docs/benchmarks attributes serve's CPU
// under mcpvec-scale's load, which starts and stops serve itself. The
// profile is written only if serve runs that long. `mcpvec ingest` writes
// one profile of each 30 s to INGEST_CPUPROFILE.1, .2, ... when that is
// set (all but the last seconds; `go tool pprof` merges them):
// docs/benchmarks/ingest-bound.md. Normal builds leave this file out.
func init() {
	if len(os.Args) < 2 {
		return
	}
	if path := os.Getenv("INGEST_CPUPROFILE"); path != "" && os.Args[1] == "ingest" {
		go profileEvery(path, 30*time.Second)
		return
	}
	path := os.Getenv("SERVE_CPUPROFILE")
	if path == "" || os.Args[1] != "serve" {
		return
	}
	secs, err := strconv.Atoi(os.Getenv("SERVE_CPUPROFILE_SECONDS"))
	if err != nil || secs <= 0 {
		secs = 20
	}
	stop := startCPUProfile(path)
	time.AfterFunc(time.Duration(secs)*time.Second, stop)
}

// profileEvery writes a CPU profile of each period to path.1, path.2, ...
// for as long as the process runs.
func profileEvery(path string, period time.Duration) {
	for i := 1; ; i++ {
		stop := startCPUProfile(fmt.Sprintf("%s.%d", path, i))
		time.Sleep(period)
		stop()
	}
}

// startCPUProfile starts a CPU profile written to path and returns the
// function that stops it and closes the file; errors are logged.
func startCPUProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		slog.Error("cpu profile", "err", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		slog.Error("cpu profile", "err", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("cpu profile", "err", err)
		}
	}
}
