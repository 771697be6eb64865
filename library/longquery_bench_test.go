package library_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
)

// benchQuery returns synthetic text of exactly chars characters.
func benchQuery(r *rand.Rand, chars int) string {
	s := benchText(r, chars/4+8)
	for utf8.RuneCountInString(s) < chars {
		s += " " + benchText(r, chars/4+8)
	}
	return s[:chars] // the text is ASCII
}

// BenchmarkLongQuery measures the whole query path at k=10 for a short
// query (3-7 words) and for 1,000- and 20,000-character ones, which keep
// their 32 most informative terms (library.LongQueryOptions), weighted by
// their frequency in the query or not ("unweighted"); "all" is a long
// query ranked by every one of its terms, the cost the cut avoids.
// MCPVEC_BENCH_LARGE=1 adds the library of 100,000 passages.
//
//	MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench 'LongQuery/n=100000' -count 5 ./library/
func BenchmarkLongQuery(b *testing.B) {
	for _, n := range benchSizes() {
		for _, mode := range []library.Mode{library.Lexical, library.Hybrid} {
			for _, c := range []struct {
				name  string
				chars int
				long  library.LongQueryOptions
			}{
				{"short", 0, library.LongQueryOptions{}},
				{"1k", 1000, library.LongQueryOptions{}},
				{"20k", 20000, library.LongQueryOptions{}},
				{"20k-unweighted", 20000, library.LongQueryOptions{Unweighted: true}},
				{"20k-all", 20000, library.LongQueryOptions{Terms: -1}},
			} {
				b.Run(fmt.Sprintf("n=%d/%s/%s", n, mode, c.name), func(b *testing.B) {
					lib, _ := benchLibWith(b, n, library.Options{LongQuery: c.long})
					benchLongQueries(b, lib, mode, c.chars)
				})
			}
		}
	}
}

func benchLongQueries(b *testing.B, lib *library.Library, mode library.Mode, chars int) {
	r := rand.New(rand.NewPCG(9, uint64(chars)))
	queries := make([]string, 50)
	for i := range queries {
		if chars == 0 {
			queries[i] = benchText(r, 3+r.IntN(5))
		} else {
			queries[i] = benchQuery(r, chars)
		}
	}
	so := library.SearchOptions{K: 10, Mode: mode, MaxQueryLen: library.DefaultMaxQueryLen}
	b.ReportAllocs()
	i, cpu := 0, reallib.StartCPU()
	for b.Loop() {
		resp, err := lib.Search(context.Background(), queries[i%len(queries)], so)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Results) == 0 {
			b.Fatal("no results: the benchmark would measure nothing")
		}
		i++
	}
	cpu.Report(b)
}
