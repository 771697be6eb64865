package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	isync "github.com/mcpvec/mcpvec/ingest/sync"
)

// BenchmarkWatcherMemory watches a tree of 10,000 small files in 100
// folders and reports the heap the watcher (fsnotify's watches and ours)
// holds once it is running, without the library a sync would load.
// Run: go test -run '^$' -bench WatcherMemory -benchtime 1x ./ingest/watch/
func BenchmarkWatcherMemory(b *testing.B) {
	const n = 10_000
	dir := b.TempDir()
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte("small file"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		before := heapInUse()
		ctx, cancel := context.WithCancel(context.Background())
		synced := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, Options{Roots: []isync.Root{{Path: dir}}, Quiet: 10 * time.Millisecond, Rescan: -1,
				Sync: func(context.Context, []isync.Root) (isync.Summary, error) {
					select {
					case synced <- struct{}{}:
					default:
					}
					return isync.Summary{}, nil
				}})
		}()
		<-synced // the watches are in place before the first sync
		b.ReportMetric(float64(heapInUse()-before), "heap-B")
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
