//go:build cpuprofile

package main

import (
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
// profile is written only if serve runs that long. Normal builds leave this
// file out.
func init() {
	path := os.Getenv("SERVE_CPUPROFILE")
	if path == "" || len(os.Args) < 2 || os.Args[1] != "serve" {
		return
	}
	secs, err := strconv.Atoi(os.Getenv("SERVE_CPUPROFILE_SECONDS"))
	if err != nil || secs <= 0 {
		secs = 20
	}
	f, err := os.Create(path)
	if err != nil {
		slog.Error("cpu profile", "err", err)
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		slog.Error("cpu profile", "err", err)
		f.Close()
		return
	}
	time.AfterFunc(time.Duration(secs)*time.Second, func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("cpu profile", "err", err)
		}
	})
}
