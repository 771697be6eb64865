// Command anchors is issue 41's anchor benchmark: mcpvec's BM25 index and
// three embeddable engines (Lucene through a small Java driver, SQLite
// FTS5, bleve v2) on the same passages and the same queries in one run,
// each on one thread, top 10. It reports build time, index size on disk,
// per-query CPU p50 and p99, top-10 overlap with mcpvec and, for
// known-item queries, success@10 and MRR@10.
//
// It is a module of its own (bench/anchors/go.mod, the main module by a
// replace) so that bleve and the SQLite driver never enter mcpvec's
// dependencies. Run from bench/anchors:
//
//	go run -tags libsqlite3 . -set /tmp/rtc/100000                 # passages.tsv, queries.tsv
//	go run -tags libsqlite3 . -passages P.tsv -claims ../../../shared/eval/scifact
//
// passages.tsv and queries.tsv are cmd/mcpvec-realtext's (build). The
// harness runs with GOMAXPROCS 1; Lucene's JVM with one processor.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

type config struct {
	set, passages, queries, claims string
	engines                        []string
	rounds, maxQueries, bleveBatch int
	work, src, label               string
	positions                      bool
	save, combine                  string
	mcpvecIndex                    string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("anchors", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.set, "set", "", "folder holding passages.tsv and queries.tsv (cmd/mcpvec-realtext build)")
	fs.StringVar(&c.passages, "passages", "", "passages.tsv (default: -set's)")
	fs.StringVar(&c.queries, "queries", "", "queries.tsv (default: -set's)")
	fs.StringVar(&c.claims, "claims", "", "instead of queries.tsv, a collection's queries (e.g. ../shared/eval/scifact): no known item")
	engines := fs.String("engines", "mcpvec,lucene,fts5,bleve", "engines run, mcpvec first (the others are compared with it)")
	fs.IntVar(&c.rounds, "rounds", 3, "measured rounds of every query (the median per query is kept)")
	fs.IntVar(&c.bleveBatch, "bleve-batch", 1000, "passages in one bleve batch (each batch waits for scorch to persist it)")
	fs.IntVar(&c.maxQueries, "max-queries", 0, "use N of the queries, evenly spread over the list (0: all); every engine of a run gets the same N")
	fs.StringVar(&c.work, "work", "", "folder for the indexes (default: a temporary folder, removed)")
	fs.StringVar(&c.src, "src", ".", "bench/anchors folder (for lucene/Anchor.java)")
	fs.StringVar(&c.label, "label", "", "a name for this run in the report")
	fs.BoolVar(&c.positions, "lucene-positions", false, "also build Lucene with term positions (TextField's default) for its size")
	fs.StringVar(&c.save, "save", "", "also write each engine's row (build, size, per-query CPU and top 10) to a file in this folder, to -combine later")
	fs.StringVar(&c.mcpvecIndex, "mcpvec-index", "", "search this mcpvec.db, saved by an earlier run's mcpvec engine (-work) over the same passages, instead of building one: its row's build times are 0 (not measured)")
	fs.StringVar(&c.combine, "combine", "", "report the rows saved in this folder (by runs with -save, one engine each, run side by side) instead of running engines; with -max-queries, rows saved with every query are cut to the same N")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.set != "" {
		c.passages = cmpOr(c.passages, filepath.Join(c.set, "passages.tsv"))
		c.queries = cmpOr(c.queries, filepath.Join(c.set, "queries.tsv"))
	}
	c.engines = strings.Split(*engines, ",")
	if c.passages == "" || (c.queries == "" && c.claims == "") || c.rounds < 1 {
		return c, fmt.Errorf("need -set, or -passages with -queries or -claims, and -rounds >= 1")
	}
	return c, nil
}

// needText reports whether an engine run in this process indexes the
// passages' text from memory; Lucene reads passages.tsv itself, mcpvec
// reads it again one passage at a time, and the report needs only each
// passage's document and index, so a run of those two (or -combine) does
// not hold 1M passages' text (~1.4 GB) for nothing.
func (c config) needText() bool {
	if c.combine != "" {
		return false
	}
	for _, e := range c.engines {
		if e != "lucene" && e != "mcpvec" {
			return true
		}
	}
	return false
}

// spread returns n of xs evenly spread over the list (all of them when n
// is 0 or not less than len(xs)): queries.tsv is sorted by document, so
// its first n would come from a few packages only. -combine spreads a row
// saved with every query the same way, to compare it with rows saved
// with -max-queries.
func spread[T any](xs []T, n int) []T {
	if n <= 0 || n >= len(xs) {
		return xs
	}
	out := make([]T, n)
	for i := range out {
		out[i] = xs[i*len(xs)/n]
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func main() {
	runtime.GOMAXPROCS(1)
	c, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = run(c, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "anchors:", err)
		os.Exit(1)
	}
}

func run(c config, out, log io.Writer) error {
	ps, err := readPassages(c.passages, c.needText())
	if err != nil {
		return err
	}
	var qs []query
	if c.claims != "" {
		qs, err = claimQueries(c.claims)
	} else {
		qs, err = readQueries(c.queries)
	}
	if err != nil {
		return err
	}
	all := len(qs)
	qs = spread(qs, c.maxQueries)
	work := c.work
	if work == "" {
		if work, err = os.MkdirTemp("", "anchors-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "anchors: %d passages, %d queries\n", len(ps), len(qs))
	if c.combine != "" {
		rows, err := loadRows(c.combine, all, len(qs))
		if err == nil {
			report(out, c, ps, qs, rows, nil)
		}
		return err
	}
	rows, sizes, err := runEngines(c, ps, qs, work, log)
	fmt.Fprintf(log, "anchors: peak RSS %d MiB\n", peakRSS()>>20)
	report(out, c, ps, qs, rows, sizes)
	if err == nil && c.save != "" {
		err = saveRows(c.save, rows)
	}
	return err
}

// runEngines runs each engine in turn; an engine that cannot run (Lucene
// without Java) is reported and skipped.
func runEngines(c config, ps []passage, qs []query, work string, log io.Writer) ([]result, *sizeReport, error) {
	var rows []result
	var sizes *sizeReport
	for _, e := range c.engines {
		fmt.Fprintf(log, "anchors: %s\n", e)
		var r result
		var err error
		switch e {
		case "mcpvec":
			var s sizeReport
			r, s, err = runMcpvec(c.passages, len(ps), qs, work, c.rounds, c.mcpvecIndex)
			sizes = &s
		case "lucene":
			r, err = runLucene(c.src, c.passages, qs, work, c.rounds, false)
			if err == nil && c.positions {
				var rp result
				if rp, err = runLucene(c.src, c.passages, qs, work, c.rounds, true); err == nil {
					rows = append(rows, r)
					r = rp
				}
			}
		case "fts5":
			r, err = runFTS5(ps, qs, work, c.rounds)
		case "bleve":
			r, err = runBleve(ps, qs, work, c.rounds, max(1, c.bleveBatch))
		default:
			err = fmt.Errorf("unknown engine %q", e)
		}
		if err != nil {
			fmt.Fprintf(log, "anchors: %s: %v\n", e, err)
			if e == "mcpvec" || !slices.Contains([]string{"lucene", "fts5", "bleve"}, e) {
				return rows, sizes, err
			}
			continue
		}
		rows = append(rows, r)
	}
	return rows, sizes, nil
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
