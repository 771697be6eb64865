package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"
)

// TestWriteRoom checks the map room reserved for an ingest: eight times
// the largest regular file found in the arguments (folders walked), capped
// by the size limit, and none when every file is small.
func TestWriteRoom(t *testing.T) {
	dir := t.TempDir()
	sized := func(rel string, size int64) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil { // sparse: the size is what counts
			t.Fatal(err)
		}
		return p
	}
	small := sized("small.txt", 1<<20)
	sized("sub/deep/big.txt", 40<<20)
	for _, c := range []struct {
		paths    []string
		maxBytes int64
		want     int64
	}{
		{[]string{small}, 256 << 20, 0},
		{[]string{small, dir}, 256 << 20, 8 * 40 << 20},
		{[]string{dir}, 20 << 20, 8 * 20 << 20},
		{[]string{filepath.Join(dir, "missing")}, 256 << 20, 0},
	} {
		if _, largest := corpusSize(c.paths, c.maxBytes); writeRoom(largest) != c.want {
			t.Errorf("writeRoom(largest of corpusSize(%v, %d)) = %d, want %d", c.paths, c.maxBytes, writeRoom(largest), c.want)
		}
	}
	// An ingest also maps room for the library it grows: eight times the
	// corpus (41 MiB here), where bbolt does not grow the file to its map.
	want := int64(8 * 41 << 20)
	if runtime.GOOS == "windows" || strconv.IntSize < 64 {
		want = 8 * 40 << 20
	}
	total, largest := corpusSize([]string{dir}, 256<<20)
	if got := ingestRoom(largest, total); got != want {
		t.Errorf("ingestRoom(%s) = %d, want %d", dir, got, want)
	}
}

// TestLimitMemory checks the soft memory limit of an ingest: eight times
// the largest file, only for large files, never over GOMEMLIMIT, restored
// after.
func TestLimitMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	restore := limitMemory(100<<20, "")
	if got, want := debug.SetMemoryLimit(-1), int64(800<<20); got != want {
		t.Errorf("limit for a 100 MiB file = %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("limit after restore = %d, want %d", got, prev)
	}
	for _, c := range []struct {
		largest int64
		env     string
	}{{1 << 20, ""}, {100 << 20, "2GiB"}} {
		limitMemory(c.largest, c.env)()
		if got := debug.SetMemoryLimit(-1); got != prev {
			t.Errorf("limitMemory(%d, %q) changed the limit to %d", c.largest, c.env, got)
		}
	}
}

// TestLowerGC: an ingest runs the collector at ingestGCPercent unless
// GOGC is set, and puts the previous target back after.
func TestLowerGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	restore := lowerGC("")
	if got, want := debug.SetGCPercent(ingestGCPercent), ingestGCPercent; got != want {
		t.Errorf("GC percent during an ingest = %d, want %d", got, want)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after restore = %d, want 100", got)
	}
	lowerGC("50")()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("lowerGC with GOGC set changed the target to %d", got)
	}
}

// TestIngestHeapProfile is the harness behind docs/benchmarks/
// expansion-budget.md: with MCPVEC_INGEST_PROFILE=FILE it ingests FILE into
// a new library through Main, logs the peak heap (HeapInuse sampled every
// 50 ms) and writes the heap profile at that peak to FILE.heap; run it with
// -memprofile for where the bytes were allocated. Skipped otherwise.
func TestIngestHeapProfile(t *testing.T) {
	file := os.Getenv("MCPVEC_INGEST_PROFILE")
	if file == "" {
		t.Skip("set MCPVEC_INGEST_PROFILE to a file to ingest")
	}
	dir := t.TempDir()
	vars := map[string]string{"MCPVEC_DB": filepath.Join(dir, "library.db"), "XDG_RUNTIME_DIR": dir}
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		var top, snap uint64
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapInuse)
			if top > snap*11/10 {
				snap = top
				if f, err := os.Create(file + ".heap"); err == nil {
					pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
			}
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	var out bytes.Buffer
	st := Main(context.Background(), []string{"ingest", file}, &env{stdout: &out, stderr: &out, getenv: func(k string) string { return vars[k] }, cwd: dir})
	close(stop)
	t.Logf("status %d, peak heap %d MB\n%s", st, <-peak>>20, out.String())
	if st != 0 {
		t.Fail()
	}
}
