package embedded_test

import (
	"os"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// BenchmarkLexicalLoad times what a synced open of the library
// MCPVEC_BENCH_LIBRARY spends on its BM25 index, the bulk of serve's time
// to ready at 1M passages: the load in place (lexical.LoadSynced of the
// InPlace bucket) inside a read transaction, reporting the process CPU per
// load beside the wall time (docs/benchmarks/serve-1m.md). The file is
// opened read-only; skipped without it.
//
//	MCPVEC_BENCH_LIBRARY=/path/l1m.db go test -run '^$' -bench LexicalLoad -benchtime 3x ./library/embedded/
func BenchmarkLexicalLoad(b *testing.B) {
	path := os.Getenv("MCPVEC_BENCH_LIBRARY")
	if path == "" {
		b.Skip("set MCPVEC_BENCH_LIBRARY")
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var cpu time.Duration
	for b.Loop() {
		c0 := cputime.Process()
		err := db.View(func(tx *store.Tx) error {
			kv, err := tx.Aux(embedded.AuxLexical)
			if err != nil {
				return err
			}
			ix, _, err := lexical.LoadSynced(lexical.InPlace(kv), lexical.DefaultConfig(), nil, nil)
			if err == nil {
				b.ReportMetric(float64(ix.Len()), "passages")
				ix.Unload()
			}
			return err
		})
		cpu += cputime.Process() - c0
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}
