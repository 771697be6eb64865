package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/mcpvec/mcpvec/library"
)

// printSweep prints, per mode, the grid's table and the setting the odd
// half of the queries chooses, compared with mcpvec's defaults (grid[0])
// on each collection.
func printSweep(grid []sweepPoint, sets []*sweepSet, modes []library.Mode, results []sweepScores) {
	for j, mode := range modes {
		fmt.Printf("\n## Sweep, %s mode: each collection's main metric over all its queries, and the average over collections (all queries, odd half, even half); the first row is mcpvec's default\n\n", mode)
		head := []string{"analyzer", "k1", "b"}
		for _, s := range sets {
			head = append(head, s.name)
		}
		head = append(head, "average", "avg odd half (tune)", "avg even half (check)")
		fmt.Println("| " + strings.Join(head, " | ") + " |")
		fmt.Println(strings.Repeat("|---", len(head)) + "|")
		best := 0
		for i, p := range grid {
			if math.IsNaN(results[i].average(j, 0)) {
				continue
			}
			row := []string{p.analyzer, fmt.Sprintf("%g", p.lex.K1), fmt.Sprintf("%g", p.lex.B)}
			for k := range sets {
				row = append(row, fmt.Sprintf("%.3f", halfMean(results[i][k][j].main, 0)))
			}
			for half := range 3 {
				row = append(row, fmt.Sprintf("%.4f", results[i].average(j, half)))
			}
			fmt.Println("| " + strings.Join(row, " | ") + " |")
			if results[i].average(j, 1) > results[best].average(j, 1) {
				best = i
			}
		}
		printChoice(grid, sets, j, mode, results, best)
	}
}

// printChoice compares the setting chosen on the odd half with the
// defaults, collection by collection, on both halves.
func printChoice(grid []sweepPoint, sets []*sweepSet, j int, mode library.Mode, results []sweepScores, best int) {
	fmt.Printf("\n### %s mode: chosen on the odd half: %s (mcpvec's default: %s)\n\n", mode, grid[best], grid[0])
	fmt.Println("| collection | metric | default: all | odd | even | chosen: all | odd | even |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	row := func(name, metric string, pick func(sweepScores) []float64) {
		cells := []string{name, metric}
		for _, i := range []int{0, best} {
			for half := range 3 {
				cells = append(cells, fmt.Sprintf("%.3f", halfMean(pick(results[i]), half)))
			}
		}
		fmt.Println("| " + strings.Join(cells, " | ") + " |")
	}
	for k, s := range sets {
		name, metric, _ := strings.Cut(s.name, " ")
		row(name, metric, func(r sweepScores) []float64 { return r[k][j].main })
		row(name, s.second, func(r sweepScores) []float64 { return r[k][j].second })
	}
	cells := []string{"average", "main metrics"}
	for _, i := range []int{0, best} {
		for half := range 3 {
			cells = append(cells, fmt.Sprintf("%.4f", results[i].average(j, half)))
		}
	}
	fmt.Println("| " + strings.Join(cells, " | ") + " |")
}
