package embedded_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/ingest/chunk"
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

// TestWriteLexicalOnly writes, when MCPVEC_BENCH_CORPUS and
// MCPVEC_BENCH_LEXICAL_OUT are set, a file holding only the BM25 index of
// the corpus folder's .md files (cut into passages by the default chunk
// options, added on all CPUs), saved as an ingest saves it: a stand-in for
// a library's BM25 segment that BenchmarkLexicalLoad reads
// (MCPVEC_BENCH_LIBRARY), built in minutes where a 1M ingest takes an hour
// (docs/benchmarks/serve-1m.md#s24). Skipped without them.
//
//	MCPVEC_BENCH_CORPUS=c1m MCPVEC_BENCH_LEXICAL_OUT=lex1m.db go test -run WriteLexicalOnly -timeout 2h ./library/embedded/
func TestWriteLexicalOnly(t *testing.T) {
	dir, out := os.Getenv("MCPVEC_BENCH_CORPUS"), os.Getenv("MCPVEC_BENCH_LEXICAL_OUT")
	if dir == "" || out == "" {
		t.Skip("set MCPVEC_BENCH_CORPUS and MCPVEC_BENCH_LEXICAL_OUT")
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := lexical.New(lexical.DefaultConfig())
	var next, id atomic.Uint64
	errs := make([]error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range errs {
		wg.Go(func() { // Add tokenises outside its lock
			for i := next.Add(1) - 1; i < uint64(len(files)) && errs[w] == nil; i = next.Add(1) - 1 {
				text, err := os.ReadFile(files[i])
				if err != nil {
					errs[w] = err
					break
				}
				chunks, err := chunk.Split(string(text), nil, chunk.DefaultOptions())
				for _, c := range chunks {
					ix.Add(id.Add(1), c.Text)
				}
				errs[w] = err
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxLexical)
		if err != nil {
			return err
		}
		return ix.Save(kv)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passages", ix.Len())
}
