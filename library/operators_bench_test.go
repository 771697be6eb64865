package library_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/query"
	"github.com/mcpvec/mcpvec/store"
)

// benchFilters are operators keeping a share of benchLib's library of n
// passages (20 a document, titled "doc N"): at 100k passages, 5000
// documents, "doc 12[0-4]" keeps 5 of them, 0.1% of the passages.
func benchFilters(n int) []struct{ name, op string } {
	if n < 100000 {
		return []struct{ name, op string }{{"none", ""}, {"keep=10%", `in:"doc 1[0-4]?"`}, {"keep=1%", `in:"doc 12[0-4]"`}}
	}
	return []struct{ name, op string }{{"none", ""}, {"keep=10%", `in:"doc 1[0-4]??"`},
		{"keep=1%", `in:"doc 1[0-4]?"`}, {"keep=0.1%", `in:"doc 12[0-4]"`}}
}

// BenchmarkSearchFiltered measures Library.Search at k 10 with an operator
// keeping 10%, 1% and 0.1% of the library, next to the same queries
// unfiltered, in each mode, and fails unless every filtered search returns
// k results when k exist (a lexical search finds only passages holding a
// query word: fewer when fewer of the kept passages do, as counted from
// their text beforehand). It also reports "postfilter-results": how many of the
// unfiltered search's 50 best passages the operator keeps, which is what
// filtering a list after ranking it would have returned.
//
//	MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench 'SearchFiltered/n=100000' -count 5 ./library/
func BenchmarkSearchFiltered(b *testing.B) {
	for _, n := range benchSizes() {
		for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
			for _, f := range benchFilters(n) {
				b.Run(fmt.Sprintf("n=%d/%s/%s", n, mode, f.name), func(b *testing.B) {
					lib, _ := benchLib(b, n)
					queries := benchQueries()
					want := make([]int, len(queries))
					for i := range want {
						want[i] = 10
					}
					post := 0.0
					if f.op != "" {
						post = postFiltered(b, lib, queries, f.op, mode)
						if mode == library.Lexical {
							want = matching(b, lib, queries, f.op)
						}
					}
					b.ReportAllocs()
					i, cpu := 0, reallib.StartCPU()
					for b.Loop() {
						q := strings.TrimSpace(queries[i%len(queries)] + " " + f.op)
						resp, err := lib.Search(context.Background(), q, library.SearchOptions{K: 10, Mode: mode})
						if err != nil {
							b.Fatal(err)
						}
						if got, want := len(resp.Results), want[i%len(queries)]; got != want {
							b.Fatalf("%q: %d results, want %d (notes %q)", q, got, want, resp.Notes)
						}
						i++
					}
					cpu.Report(b)
					if f.op != "" {
						b.ReportMetric(post, "postfilter-results")
					}
				})
			}
		}
	}
}

// benchQueries are BenchmarkSearch's queries.
func benchQueries() []string {
	r := rand.New(rand.NewPCG(9, 9))
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = benchText(r, 3+r.IntN(5))
	}
	return queries
}

// postFiltered is the mean number of the unfiltered 50 best passages of
// the first 20 queries that op keeps.
func postFiltered(b *testing.B, lib *library.Library, queries []string, op string, mode library.Mode) float64 {
	ctx := context.Background()
	docs := map[string]bool{}
	for _, c := range kept(b, lib, op) {
		docs[c.DocID] = true
	}
	kept := 0
	for _, q := range queries[:20] {
		resp, err := lib.Search(ctx, q, library.SearchOptions{K: 50, Mode: mode})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range resp.Results {
			if docs[r.DocID] {
				kept++
			}
		}
	}
	return float64(kept) / 20
}

// kept returns the passages of the documents op keeps.
func kept(b *testing.B, lib *library.Library, op string) []*store.Chunk {
	ctx := context.Background()
	docs, err := lib.Documents(ctx)
	if err != nil {
		b.Fatal(err)
	}
	q := query.Parse(op)
	var out []*store.Chunk
	for _, d := range docs {
		if !q.MatchDocument(d) {
			continue
		}
		_, chunks, err := lib.Document(ctx, d.ID)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, chunks...)
	}
	return out
}

// matching counts, for each query, the passages op keeps that hold one of
// its words (at most 10): what a lexical search can return.
func matching(b *testing.B, lib *library.Library, queries []string, op string) []int {
	chunks := kept(b, lib, op)
	terms := make([]map[string]bool, len(chunks))
	for i, c := range chunks {
		terms[i] = map[string]bool{}
		for _, t := range analysis.Tokenize(c.IndexText()) {
			terms[i][t] = true
		}
	}
	out := make([]int, len(queries))
	for i, q := range queries {
		for _, ts := range terms {
			if slices.ContainsFunc(analysis.Tokenize(q), func(t string) bool { return ts[t] }) {
				out[i]++
			}
		}
		out[i] = min(out[i], 10)
	}
	return out
}
