package embedded_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestPrunedMatchesExhaustiveRealLibrary: on the library MCPVEC_BENCH_LIBRARY,
// for every query of MCPVEC_BENCH_QUERIES, the BM25 index's pruned search
// (k below 50) returns exactly the ids and scores of the first k of its
// exhaustive search at k 100 (BM25's order is total, ties by id, so those
// are a prefix). Skipped without both.
func TestPrunedMatchesExhaustiveRealLibrary(t *testing.T) {
	if os.Getenv("MCPVEC_BENCH_LIBRARY") == "" {
		t.Skip("set MCPVEC_BENCH_LIBRARY and MCPVEC_BENCH_QUERIES")
	}
	lib, _, queries := openRealLibrary(t)
	lex := embedded.LexIndex(lib)
	for _, q := range queries {
		all := lex.Search(q, 100)
		for _, k := range []int{1, 10, 20, 40} {
			want := all[:min(k, len(all))]
			if got := lex.Search(q, k); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q k %d:\n pruned     %v\n exhaustive %v", q, k, got, want)
			}
		}
	}
}

// BenchmarkBM25RealLibrary measures the BM25 index alone on the library and
// queries of BenchmarkSearchRealLibrary: below k 50 Search prunes, from k 50
// it scores every posting (whose cost does not depend on k). Run it with
// -cpu 1: on more CPUs a lone exhaustive search is split across them.
func BenchmarkBM25RealLibrary(b *testing.B) {
	lib, _, queries := openRealLibrary(b)
	lex := embedded.LexIndex(lib)
	for _, k := range []int{10, 20, 30, 50, 100} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for _, q := range queries { // once untimed: the long lists' flat copies are made on first read
				lex.Search(q, k)
			}
			i, cpu := 0, reallib.StartCPU()
			took := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				lex.Search(queries[i%len(queries)], k)
				took = append(took, time.Since(t0))
				i++
			}
			cpu.Report(b)
			reportQuantiles(b, took)
		})
	}
}

// openRealLibrary is reallib.Open with the library's default logger.
func openRealLibrary(b testing.TB) (*library.Library, *store.DB, []string) {
	return reallib.Open(b, nil)
}

// reportQuantiles reports the median and the 99th percentile of took, the
// time of each search (a mean hides the few claims that cost 5x the rest).
func reportQuantiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
}
