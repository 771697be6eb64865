package sync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
)

// benchSizes are the folder sizes benchmarked; MCPVEC_BENCH_LARGE=1 adds
// the 10,000 files.
func benchSizes() []int {
	if os.Getenv("MCPVEC_BENCH_LARGE") != "" {
		return []int{1_000, 10_000}
	}
	return []int{1_000}
}

// writeTree writes n small text files, 100 per folder.
func writeTree(tb testing.TB, f *synctest.Fixture, n int) isync.Root {
	tb.Helper()
	for i := range n {
		f.Write(tb, filepath.Join("r", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.txt", i)),
			fmt.Sprintf("Small file %d about topic %d, with a few words to index.", i, i%97))
	}
	return f.Root("r")
}

// BenchmarkSyncUnchanged re-syncs a folder where nothing changed: a walk,
// a stat per file and the library's document list; no file is read.
// Run: MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench SyncUnchanged ./ingest/sync/
func BenchmarkSyncUnchanged(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			f := synctest.MustFixture(b)
			root := writeTree(b, f, n)
			if sum := f.Run(b, root); sum.Added != n {
				b.Fatalf("first sync: %+v", sum)
			}
			ex := f.Ex.N.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				sum, err := f.Sync.Run(context.Background(), []isync.Root{root})
				if err != nil || sum.Unchanged != n {
					b.Fatalf("re-sync: %+v %v", sum, err)
				}
			}
			if f.Ex.N.Load() != ex {
				b.Fatal("an unchanged folder was extracted")
			}
		})
	}
}
