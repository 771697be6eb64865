//go:build heapprofile

package main

import (
	"log/slog"
	"os"
	"runtime/pprof"
	"time"
)

// Built with -tags heapprofile, `mcpvec ingest` writes a heap profile
// (in-use and allocated space) every 15 s to the file INGEST_HEAPPROFILE
// names, when set, replacing the last: the one left at the end is the
// heap of the ingest's last seconds, attributed by function. How
// docs/benchmarks/ingest-bound.md splits the live heap of an ingest
// between the BM25 index, the HNSW graph and the store. Normal builds
// leave this file out.
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
