package library_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// BenchmarkSearchRealLibrary measures Library.Search on an existing library
// built with the offline embedder (MCPVEC_BENCH_LIBRARY, e.g. one made by
// cmd/mcpvec-scale) with the queries of a JSON-lines file of {"text": …}
// objects (MCPVEC_BENCH_QUERIES, e.g. ../shared/eval/scifact/queries.jsonl),
// one sub-benchmark per mode. Skipped without both.
//
//	MCPVEC_BENCH_LIBRARY=/path/library.db MCPVEC_BENCH_QUERIES=../../../shared/eval/scifact/queries.jsonl \
//	  go test -run '^$' -bench SearchRealLibrary -count 5 ./library/
func BenchmarkSearchRealLibrary(b *testing.B) {
	lib, _, queries := openRealLibrary(b)
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		b.Run(string(mode), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := lib.Search(context.Background(), queries[i%len(queries)], library.SearchOptions{Mode: mode}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkSearchServed measures Library.Search as serve's search tool
// calls it (10 results, the library's default mode: BM25 alone for the
// offline embedder) on the library and queries of
// BenchmarkSearchRealLibrary, in process CPU per search (cpu-ns/op) and
// allocations. Skipped without both.
//
//	MCPVEC_BENCH_LIBRARY=/path/library.db MCPVEC_BENCH_QUERIES=../../../shared/eval/scifact/queries.jsonl \
//	  go test -run '^$' -bench SearchServed -benchtime 3000x -count 5 ./library/
func BenchmarkSearchServed(b *testing.B) {
	lib, _, queries := openRealLibrary(b)
	opts := library.SearchOptions{K: 10}
	for _, q := range queries { // warm: the mapped file's pages, the pools
		if _, err := lib.Search(context.Background(), q, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i, cpu := 0, reallib.StartCPU()
	for b.Loop() {
		if _, err := lib.Search(context.Background(), queries[i%len(queries)], opts); err != nil {
			b.Fatal(err)
		}
		i++
	}
	cpu.Report(b)
}

// TestSearchServedDigest writes, for the library and queries of
// BenchmarkSearchRealLibrary, every result of each search as serve's
// search tool makes it (id, score, title, link, page, anchor, snippet)
// to the file MCPVEC_BENCH_RESULTS and logs its SHA-256: two builds whose
// digests match answered every query alike, byte for byte. Skipped
// without the three variables.
//
//	MCPVEC_BENCH_RESULTS=/tmp/r.txt MCPVEC_BENCH_LIBRARY=… MCPVEC_BENCH_QUERIES=… go test -run SearchServedDigest -v ./library/
func TestSearchServedDigest(t *testing.T) {
	out := os.Getenv("MCPVEC_BENCH_RESULTS")
	if out == "" {
		t.Skip("set MCPVEC_BENCH_RESULTS, MCPVEC_BENCH_LIBRARY and MCPVEC_BENCH_QUERIES")
	}
	lib, _, queries := openRealLibrary(t)
	var b bytes.Buffer
	for round := range 2 { // the second with every passage's language remembered
		for _, q := range queries {
			resp, err := lib.Search(context.Background(), q, library.SearchOptions{K: 10})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%d %q\n", round, q)
			for _, r := range resp.Results {
				fmt.Fprintf(&b, "%s %v %q %q %d %q %q %q\n", r.ID, r.Score, r.Title, r.URL, r.Page, r.Anchor, r.Source, r.Text)
			}
		}
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("sha256 %x, %d queries", sha256.Sum256(b.Bytes()), len(queries))
}

// BenchmarkResultsRealLibrary measures result assembly alone (passage
// reads, snippets, dedupe, titles) on the library and queries of
// BenchmarkSearchRealLibrary, each query ranked once beforehand.
func BenchmarkResultsRealLibrary(b *testing.B) {
	lib, _, queries := openRealLibrary(b)
	ranked := make([][]library.Hit, len(queries))
	for i, q := range queries {
		hits, err := library.Ranked(context.Background(), lib, q)
		if err != nil {
			b.Fatal(err)
		}
		ranked[i] = hits
	}
	b.ReportAllocs()
	i, cpu := 0, reallib.StartCPU()
	for b.Loop() {
		if _, err := library.Assemble(lib, queries[i%len(queries)], ranked[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	cpu.Report(b)
}

// BenchmarkSnippetRealLibrary measures snippets alone: an op cuts the
// snippets of one query's ranked passages (20 for a SciFact claim), read
// beforehand, on the library and queries of BenchmarkSearchRealLibrary.
func BenchmarkSnippetRealLibrary(b *testing.B) {
	lib, db, queries := openRealLibrary(b)
	cut := make([]func(string) string, len(queries))
	texts := make([][]string, len(queries))
	for i, q := range queries {
		hits, err := library.Ranked(context.Background(), lib, q)
		if err != nil {
			b.Fatal(err)
		}
		seqs := make([]uint64, len(hits))
		for j, h := range hits {
			seqs[j] = h.Seq
		}
		cs, err := db.Chunks(seqs)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cs {
			texts[i] = append(texts[i], c.Text)
		}
		cut[i] = library.SnippetFunc(q)
	}
	b.ReportAllocs()
	i, cpu := 0, reallib.StartCPU()
	for b.Loop() {
		for _, t := range texts[i%len(queries)] {
			cut[i%len(queries)](t)
		}
		i++
	}
	cpu.Report(b)
}

// openRealLibrary is reallib.Open with the library's default logger.
func openRealLibrary(b testing.TB) (*library.Library, *store.DB, []string) {
	return reallib.Open(b, nil)
}
