package main

import (
	"math"
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
