package library_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/cputime"
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

// longQueryKinds are the queries BenchmarkLongQuery compares: a short
// one (3-7 words, as BenchmarkSearch's), 1,000 and 20,000 characters.
var longQueryKinds = []struct {
	name  string
	chars int
}{{"short", 0}, {"1k", 1000}, {"20k", 20000}}

// BenchmarkLongQuery measures the whole query path at k=10 for a short
// query and for 1,000- and 20,000-character ones, which keep their 32 most
// informative terms (library.LongQueryOptions), weighted by their
// frequency in the query ("weighted") or not ("unweighted"); "all" ranks
// a long query by every one of its terms, the cost the cut avoids. An op
// searches one query of each kind in turn, so that the machine's load
// weighs on all three alike, and reports each kind's mean wall and
// process CPU time (µs). MCPVEC_BENCH_LARGE=1 adds the library of 100,000
// passages.
//
//	MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench 'LongQuery/n=100000' -count 5 ./library/
func BenchmarkLongQuery(b *testing.B) {
	for _, n := range benchSizes() {
		for _, mode := range []library.Mode{library.Lexical, library.Hybrid} {
			for _, v := range []struct {
				name string
				long library.LongQueryOptions
			}{
				{"weighted", library.LongQueryOptions{}},
				{"unweighted", library.LongQueryOptions{Unweighted: true}},
				{"all", library.LongQueryOptions{Terms: -1}},
			} {
				b.Run(fmt.Sprintf("n=%d/%s/%s", n, mode, v.name), func(b *testing.B) {
					lib, _ := benchLibWith(b, n, library.Options{LongQuery: v.long})
					benchLongQueries(b, lib, mode)
				})
			}
		}
	}
}

func benchLongQueries(b *testing.B, lib *library.Library, mode library.Mode) {
	r := rand.New(rand.NewPCG(9, 38))
	queries := make([][]string, len(longQueryKinds))
	for k, kind := range longQueryKinds {
		for range 50 {
			q := benchText(r, 3+r.IntN(5))
			if kind.chars > 0 {
				q = benchQuery(r, kind.chars)
			}
			queries[k] = append(queries[k], q)
		}
	}
	so := library.SearchOptions{K: 10, Mode: mode}
	wall := make([]time.Duration, len(longQueryKinds))
	cpu := make([]time.Duration, len(longQueryKinds))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for k := range longQueryKinds {
			q := queries[k][i%len(queries[k])]
			start, c0 := time.Now(), cputime.Process()
			resp, err := lib.Search(context.Background(), q, so)
			cpu[k] += cputime.Process() - c0
			wall[k] += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if len(resp.Results) == 0 {
				b.Fatal("no results: the benchmark would measure nothing")
			}
		}
		i++
	}
	for k, kind := range longQueryKinds {
		b.ReportMetric(float64(wall[k].Microseconds())/float64(b.N), kind.name+"-µs")
		b.ReportMetric(float64(cpu[k].Microseconds())/float64(b.N), kind.name+"-cpu-µs")
	}
}
