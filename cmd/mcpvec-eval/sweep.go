package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library"
)

// The ranking sweep (-sweep) scores a grid of BM25 parameters and word
// rules on every collection at once (SciFact and Cranfield by eval.py, the
// long-document check, and each known-item folder of -sweep-known) and
// prints, per search mode, each collection's main metric and their
// average, over all queries and over each half of them: the odd queries
// (1st, 3rd, ...) to choose on, the even ones to check the choice on.

// sweepPoint is one setting of the grid.
type sweepPoint struct {
	analyzer string
	lex      lexical.Config
}

func (p sweepPoint) String() string {
	return fmt.Sprintf("analyzer %s, k1=%g, b=%g", p.analyzer, p.lex.K1, p.lex.B)
}

// parseSweep reads "k1=0.9,1.2;b=0.5,0.75;analyzer=default,stop-short":
// the grid of every combination, with mcpvec's defaults first. A key left
// out keeps its default.
func parseSweep(spec string) ([]sweepPoint, error) {
	def := lexical.DefaultConfig()
	k1s, bs, analyzers := []float64{def.K1}, []float64{def.B}, []string{defaultAnalyzer}
	for _, part := range strings.Split(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		key, vals, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok || (key != "k1" && key != "b" && key != "analyzer") {
			return nil, fmt.Errorf("-sweep %q: want k1=..., b=... or analyzer=..., separated by ;", part)
		}
		list := strings.Split(vals, ",")
		if key == "analyzer" {
			analyzers = list
			continue
		}
		fs := make([]float64, len(list))
		for i, v := range list {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, fmt.Errorf("-sweep %s: %w", key, err)
			}
			fs[i] = f
		}
		if key == "k1" {
			k1s = fs
		} else {
			bs = fs
		}
	}
	grid := []sweepPoint{{defaultAnalyzer, def}}
	for _, a := range analyzers {
		if err := checkAnalyzer(a); err != nil {
			return nil, err
		}
		for _, k1 := range k1s {
			for _, b := range bs {
				if p := (sweepPoint{a, lexical.Config{K1: k1, B: b}}); p != grid[0] {
					grid = append(grid, p)
				}
			}
		}
	}
	return grid, nil
}

// sweepScores are one setting's per-query scores: by set, then by mode.
type sweepScores [][]modeScores

type modeScores struct{ main, second []float64 }

// sweep runs the grid of c.sweep over every collection and prints tables.
func sweep(ctx context.Context, c config) error {
	grid, err := parseSweep(c.sweep)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	sets, err := openSweepSets(ctx, c)
	defer func() {
		for _, s := range sets {
			s.close()
		}
	}()
	if err != nil {
		return err
	}
	modes, err := parseModes(c.modes)
	if err != nil {
		return err
	}
	results := make([]sweepScores, len(grid))
	for i, p := range grid {
		fmt.Fprintf(os.Stderr, "sweep: %d/%d %s\n", i+1, len(grid), p)
		if results[i], err = sweepPointScores(ctx, p, sets, modes, i == 0 || grid[i-1].analyzer != p.analyzer); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for j, mode := range modes {
			fmt.Fprintf(os.Stderr, "sweep: %s %s:", p, mode)
			for k, s := range sets {
				fmt.Fprintf(os.Stderr, " %s %.4f;", s.name, halfMean(results[i][k][j].main, 0))
			}
			fmt.Fprintf(os.Stderr, " average %.4f (odd %.4f, even %.4f)\n", results[i].average(j, 0), results[i].average(j, 1), results[i].average(j, 2))
		}
	}
	printSweep(grid, sets, modes, results)
	return nil
}

// openSweepSets ingests every collection of the sweep.
func openSweepSets(ctx context.Context, c config) ([]*sweepSet, error) {
	var sets []*sweepSet
	for _, coll := range strings.Split(c.collections, ",") {
		if coll == "" {
			continue
		}
		s, err := trecSweepSet(ctx, c, coll)
		if err != nil {
			return sets, fmt.Errorf("%s: %w", coll, err)
		}
		sets = append(sets, s)
	}
	if c.longdoc {
		s, err := longPDFSweepSet(ctx, c)
		if err != nil {
			return sets, fmt.Errorf("long documents: %w", err)
		}
		sets = append(sets, s)
	}
	for _, dir := range strings.Split(c.sweepKnown, ",") {
		if dir == "" {
			continue
		}
		s, err := knownItemSweepSet(ctx, c, dir)
		if err != nil {
			return sets, fmt.Errorf("%s: %w", dir, err)
		}
		sets = append(sets, s)
	}
	for _, dir := range strings.Split(c.sweepPassages, ",") {
		if dir == "" {
			continue
		}
		s, err := passageSweepSet(ctx, c, dir)
		if err != nil {
			return sets, fmt.Errorf("%s: %w", dir, err)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

func parseModes(list string) ([]library.Mode, error) {
	var modes []library.Mode
	for _, m := range strings.Split(list, ",") {
		mode, err := library.ParseMode(m)
		if err != nil {
			return nil, err
		}
		modes = append(modes, mode)
	}
	return modes, nil
}

// sweepPointScores reopens every set with p's parameters (tokenising its
// passages again when newRules: p's word rules differ from the last
// point's) and scores it in each mode. A point with other word rules than
// mcpvec's is scored in lexical mode alone: its query vectors would be
// made by other rules than the stored passage vectors.
func sweepPointScores(ctx context.Context, p sweepPoint, sets []*sweepSet, modes []library.Mode, newRules bool) (sweepScores, error) {
	restore, err := useAnalyzer(p.analyzer)
	if err != nil {
		return nil, err
	}
	defer restore()
	out := make(sweepScores, len(sets))
	for i, s := range sets {
		if err := s.tl.reopen(ctx, p.lex, newRules); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		out[i] = make([]modeScores, len(modes))
		for j, mode := range modes {
			if p.analyzer != defaultAnalyzer && mode != library.Lexical {
				continue
			}
			main, second, err := s.score(ctx, s.tl.lib, mode)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", s.name, mode, err)
			}
			out[i][j] = modeScores{main, second}
		}
	}
	return out, nil
}

// halfMean is the mean of the evaluated (non-NaN) scores of half: 0 all
// queries, 1 the odd ones (1st, 3rd, ...), 2 the even ones.
func halfMean(xs []float64, half int) float64 {
	sum, n := 0.0, 0
	for i, x := range xs {
		if math.IsNaN(x) || (half == 1 && i%2 != 0) || (half == 2 && i%2 != 1) {
			continue
		}
		sum, n = sum+x, n+1
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// average is the mean over sets of their main metric's halfMean in mode
// j; NaN when a set was not scored in it.
func (r sweepScores) average(j, half int) float64 {
	sum := 0.0
	for _, bySet := range r {
		if bySet[j].main == nil {
			return math.NaN()
		}
		sum += halfMean(bySet[j].main, half)
	}
	return sum / float64(len(r))
}

// defaultAnalyzer names mcpvec's word rules in -sweep's analyzer list;
// the others join with + any of stop-short, stop-none, stem-plural and
// stem-none (analysis.EnglishRules), e.g. stop-short+stem-plural.
const defaultAnalyzer = "default"

func analyzerRules(name string) (analysis.EnglishRules, error) {
	var r analysis.EnglishRules
	if name == defaultAnalyzer {
		return r, nil
	}
	for _, part := range strings.Split(name, "+") {
		switch part {
		case "stop-short":
			r.Stop = analysis.StopShort
		case "stop-none":
			r.Stop = analysis.StopNone
		case "stem-plural":
			r.Stem = analysis.StemPlural
		case "stem-none":
			r.Stem = analysis.StemNone
		default:
			return r, fmt.Errorf("-sweep analyzer %q: want default or stop-short, stop-none, stem-plural, stem-none joined by +", name)
		}
	}
	return r, nil
}

func checkAnalyzer(name string) error {
	_, err := analyzerRules(name)
	return err
}

// useAnalyzer puts the word rules name in force until restore is called.
func useAnalyzer(name string) (restore func(), err error) {
	r, err := analyzerRules(name)
	if err != nil {
		return nil, err
	}
	if err := analysis.SetEnglishRules(r); err != nil {
		return nil, err
	}
	return func() { _ = analysis.SetEnglishRules(analysis.EnglishRules{}) }, nil
}
