package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/index/lexical"
)

func TestParseSweep(t *testing.T) {
	grid, err := parseSweep("k1=1.2,2; b=0.5,0.75 ;analyzer=default,stop-short+stem-plural")
	if err != nil {
		t.Fatal(err)
	}
	// 2 analyzers × 2 k1 × 2 b, the default once, first.
	if got, want := len(grid), 8; got != want {
		t.Fatalf("grid has %d points, want %d: %v", got, want, grid)
	}
	if got, want := grid[0], (sweepPoint{defaultAnalyzer, lexical.DefaultConfig()}); got != want {
		t.Errorf("first point %v, want the default %v", got, want)
	}
	seen := map[sweepPoint]bool{}
	for _, p := range grid {
		if seen[p] {
			t.Errorf("point %v twice", p)
		}
		seen[p] = true
	}
	for _, bad := range []string{"k2=1", "k1=x", "analyzer=porter", "k1"} {
		if _, err := parseSweep(bad); err == nil {
			t.Errorf("parseSweep(%q) accepted", bad)
		}
	}
}

func TestHalfMean(t *testing.T) {
	xs := []float64{1, 0, math.NaN(), 0, 1, 1}
	for half, want := range []float64{3.0 / 5, 2.0 / 2, 1.0 / 3} {
		if got := halfMean(xs, half); math.Abs(got-want) > 1e-12 {
			t.Errorf("halfMean(half %d) = %v, want %v", half, got, want)
		}
	}
}

func TestReadPassageQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.tsv")
	data := "q1\tpkg/a.md\t3\theading\tset variable value\tSet a variable to a value\n\nq2\tpkg/b.md\t0\tsentence\tother words\tsource\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := readPassageQueries(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []passageQuery{{id: "q1", doc: "pkg/a.md", passage: 3, text: "set variable value"}, {id: "q2", doc: "pkg/b.md", text: "other words"}}
	if !slices.Equal(qs, want) {
		t.Errorf("read %+v, want %+v", qs, want)
	}
}
