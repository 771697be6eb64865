//go:build heapprofile

package main

import (
	"log/slog"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// Built with -tags heapprofile, `mcpvec ingest` writes a heap profile
// (in-use and allocated space) every 15 s to the file INGEST_HEAPPROFILE
// names, when set, replacing the last: the one left at the end is the
// heap of the ingest's last seconds, attributed by function. How
// docs/benchmarks/ingest-bound.md splits the live heap of an ingest
// between the BM25 index, the HNSW graph and the store. It also writes
// one to INGEST_HEAPPROFILE.peak each time the heap's objects pass their
// highest yet by an eighth (looked at every 100 ms): the profile of the
// largest spike (docs/benchmarks/ingest-spikes.md). Normal builds leave
// this file out.
func init() {
	path := os.Getenv("INGEST_HEAPPROFILE")
	if path == "" || len(os.Args) < 2 || os.Args[1] != "ingest" {
		return
	}
	go func() {
		for range time.Tick(15 * time.Second) {
			writeHeapProfile(path)
		}
	}()
	go watchPeak(path + ".peak")
}

// watchPeak writes a heap profile to path whenever the heap's objects
// grow an eighth past the largest size seen when it last wrote one.
func watchPeak(path string) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var high uint64 = 64 << 20
	for range time.Tick(100 * time.Millisecond) {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > high+high/8 {
			high = v
			writeHeapProfile(path)
			slog.Info("heap profile at a new high", "MiB", v>>20)
		}
	}
}

// writeHeapProfile writes the heap profile to path through a temporary
// file, so a reader never sees half of one.
func writeHeapProfile(path string) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		slog.Error("heap profile", "err", err)
		return
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		slog.Error("heap profile", "err", err)
	}
}
