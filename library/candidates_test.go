package library_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvec/mcpvec/library"
)

// TestFewCandidatesSameResults: a lexical search ranks k+2 candidates
// first, then 2k and then all of them only when overlapping passages use
// the shorter list up; either way its results are those of ranking all
// candidates at once. The
// library holds many copies of the best passages, so dropping repeats
// forces the second ranking for small k.
func TestFewCandidatesSameResults(t *testing.T) {
	f := newFixture(t, library.Options{Mode: library.Lexical})
	for i := range 40 {
		f.Add(t, fmt.Sprintf("copy%02d", i), fmt.Sprintf("copy%02d.md", i), "text/markdown", "",
			"The lighthouse keeper trimmed the lamp wicks every evening.")
	}
	for i := range 30 {
		f.Add(t, fmt.Sprintf("other%02d", i), fmt.Sprintf("other%02d.md", i), "text/markdown", "",
			fmt.Sprintf("Keeper %d of a harbour lighthouse wrote about storms and lamp oil.", i),
			fmt.Sprintf("A lamp on page two of document %d.", i))
	}
	ctx := context.Background()
	queries := []string{"lighthouse keeper lamp wicks", "lamp", "harbour storms", "keeper", "evening lamp oil", "nothing matches zzz"}
	for _, q := range queries {
		for _, k := range []int{1, 2, 3, 5, 10, 20, 33, 34, 49, 50} {
			assertSameAsAllCandidates(t, f.Lib, q, k)
		}
	}
	resp, err := f.Lib.Search(ctx, "lighthouse keeper lamp wicks", library.SearchOptions{K: 5})
	if err != nil || len(resp.Results) != 5 {
		t.Fatalf("k 5 with 40 copies on top: %d results, %v; want 5 (the second ranking)", len(resp.Results), err)
	}
}

// TestFewCandidatesSameResultsRealLibrary is TestFewCandidatesSameResults
// over every query of MCPVEC_BENCH_QUERIES on the library
// MCPVEC_BENCH_LIBRARY (see BenchmarkSearchRealLibrary); skipped without
// both.
func TestFewCandidatesSameResultsRealLibrary(t *testing.T) {
	if os.Getenv("MCPVEC_BENCH_LIBRARY") == "" {
		t.Skip("set MCPVEC_BENCH_LIBRARY and MCPVEC_BENCH_QUERIES")
	}
	lib, _, queries := openRealLibrary(t)
	for _, q := range queries {
		for _, k := range []int{1, 10, 30} {
			assertSameAsAllCandidates(t, lib, q, k)
		}
	}
}

func assertSameAsAllCandidates(t *testing.T, lib *library.Library, q string, k int) {
	t.Helper()
	ctx := context.Background()
	so := library.SearchOptions{K: k, Mode: library.Lexical}
	got, err := lib.Search(ctx, q, so)
	if err != nil {
		t.Fatal(err)
	}
	want, err := library.SearchAllCandidates(ctx, lib, q, so)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(library.SearchResult{})); diff != "" {
		t.Fatalf("%q k %d: results differ from ranking all candidates (-all +few):\n%s", q, k, diff)
	}
}
