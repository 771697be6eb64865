package embedded_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestSegmentSaveMemory measures the Go heap a Save writing a new BM25
// segment costs, written ahead in steps (PrewriteSegment) and inside the
// Save's one transaction as before: on a copy of the library
// MCPVEC_SAVEMEM_LIBRARY (a scale library, whose segment is rewritten once
// 2,000 passages are added beside it), or on a new one of
// MCPVEC_SAVEMEM_PASSAGES passages; skipped when neither is set. It logs
// the largest heap in use sampled during the Fold, less the heap in use
// before it, the collector running at GOGC 10 meanwhile so that the heap
// in use stays near what is live. See docs/benchmarks/ingest-memory.md.
func TestSegmentSaveMemory(t *testing.T) {
	src := os.Getenv("MCPVEC_SAVEMEM_LIBRARY")
	n, _ := strconv.Atoi(os.Getenv("MCPVEC_SAVEMEM_PASSAGES"))
	if src == "" && n <= 0 {
		t.Skip("set MCPVEC_SAVEMEM_LIBRARY or MCPVEC_SAVEMEM_PASSAGES to measure")
	}
	for _, steps := range []bool{false, true, false, true} {
		before, peak, took := foldMemory(t, src, n, steps)
		t.Logf("steps %v: heap before the fold %d MiB, peak during it %d MiB (+%d MiB), fold %s",
			steps, before>>20, peak>>20, (peak-before)>>20, took.Round(time.Millisecond))
	}
}

// foldMemory opens a copy of the library src, or a new one filled with n
// passages, adds 2,000 passages as records, and returns the heap in use
// before a Fold, the most sampled during it and how long it took.
func foldMemory(t *testing.T, src string, n int, steps bool) (before, peak uint64, took time.Duration) {
	defer embedded.SetPrewrite(steps)()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lib.db")
	if src != "" {
		copyFile(t, src, path)
	}
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if src == "" {
		if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
			t.Fatal(err)
		}
	}
	meta, err := db.Meta()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(ctx, db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d*100 < n+2000; d++ {
		putPassages(t, lib, db, d, meta.Embedder.Dimensions)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10)) // the heap in use stays near what is live
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before = ms.HeapInuse
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		most := uint64(0)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			most = max(most, ms.HeapInuse)
			select {
			case <-stop:
				done <- most
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	if err := lib.Fold(ctx); err != nil {
		t.Fatal(err)
	}
	took = time.Since(start)
	close(stop)
	return before, <-done, took
}

// putPassages writes document d of 100 passages, with vectors of dims
// dimensions, and applies it to lib.
func putPassages(t *testing.T, lib *library.Library, db *store.DB, d, dims int) {
	chunks := make([]store.Chunk, 100)
	vecs := make([][]float32, len(chunks))
	for i := range chunks {
		p := d*len(chunks) + i
		text := fmt.Sprintf("Passage %d about harbour h%dx, lighthouse l%dy, quay q%dz and tide t%dw in the bay.", p, p, p%37, p%1009, p%97)
		chunks[i] = store.Chunk{Text: text, End: len(text), PageStart: 1, PageEnd: 1}
		vecs[i] = make([]float32, dims)
		vecs[i][p%dims] = 1
	}
	doc := &store.Document{ID: fmt.Sprintf("savemem-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/savemem/%d", d), MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
	res, err := db.PutDocument(doc, chunks, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.Apply(context.Background(), res); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
