// Command mcpvec-scale is the end-to-end scale benchmark of issue 16: it
// generates a Markdown corpus by recombining the sentences of SciFact
// abstracts (deterministic by seed, about -passages passages), builds the
// real binary, and measures `mcpvec ingest` (passages/s, wall time, peak
// RSS), the library file, `mcpvec serve` (ready time, RSS after load and
// under load), MCP HTTP search load from 1 and 16 concurrent sessions, and
// a CLI `mcpvec search` end to end. It prints a Markdown table and can
// write the figures as JSON.
//
//	go run ./cmd/mcpvec-scale -passages 100000 -json scale.json
//	go run ./cmd/mcpvec-scale -library /work/scale/1m/library.db   # measure an existing library
//	go run ./cmd/mcpvec-scale -passages 100000 -setups 0,1,3        # embedded vs Weaviate (issue 14)
//
// It uses the offline (hash) embedder; -dimensions passes through to ingest.
// Children get a private XDG_RUNTIME_DIR, so no other server on the machine
// takes their commands.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

type config struct {
	shared     string
	passages   int
	seed       uint64
	dir        string
	src        string
	bin        string
	library    string
	dimensions int
	clients    []int
	requests   int
	limit      time.Duration
	starts     int
	rssAfter   time.Duration
	cliRuns    int
	jsonOut    string
	latencies  string
	label      string
	setups     []int
	wvIngest   int
	settle     time.Duration
	client     string
	overhead   int
	corpusOnly string
}

// raw reports whether load phases use rawConn rather than net/http's
// client.
func (c config) raw() bool { return c.client == "raw" }

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("mcpvec-scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.shared, "shared", "../shared", "folder holding eval/scifact")
	fs.IntVar(&c.passages, "passages", 100_000, "passages to generate (about; the real count comes from ingest)")
	fs.Uint64Var(&c.seed, "seed", 1, "corpus seed")
	fs.StringVar(&c.dir, "dir", "", "work folder for the corpus, library and binary (default: a temporary folder, removed)")
	fs.StringVar(&c.src, "src", ".", "module root the mcpvec binary is built from")
	fs.StringVar(&c.bin, "bin", "", "use this mcpvec binary instead of building one")
	fs.StringVar(&c.library, "library", "", "measure this existing library: no corpus, no ingest")
	fs.IntVar(&c.dimensions, "dimensions", 0, "passed to ingest as --dimensions (0: the embedder's default)")
	clients := fs.String("clients", "1,16", "concurrent MCP sessions of each load phase")
	fs.IntVar(&c.requests, "requests", 3000, "search calls per load phase (at most)")
	fs.StringVar(&c.client, "client", "raw", "load clients' HTTP: raw (one hand-written HTTP/1.1 connection each, the lighter on the shared CPUs) or net (net/http's client, as before session 8)")
	fs.DurationVar(&c.limit, "limit", 60*time.Second, "longest load phase")
	fs.IntVar(&c.starts, "starts", 2, "serve starts measured (the first may upgrade the library)")
	fs.DurationVar(&c.rssAfter, "rss-after", 10*time.Second, "also read a started server's RSS this long after it was ready: it may load some indexes in the background (0: not)")
	fs.IntVar(&c.cliRuns, "cli-runs", 5, "CLI searches timed (the median is reported)")
	fs.StringVar(&c.jsonOut, "json", "", "also write the figures to this JSON file")
	fs.StringVar(&c.latencies, "latencies", "", "also write every load call to this file: clients, start and latency in ms, query index (not with -setups; with -overhead, serve's calls of every round)")
	fs.StringVar(&c.label, "label", "", "a name for this run in the report")
	setups := fs.String("setups", "", "side by side instead: the libraries compared, by Weaviate node count (0: the embedded file; 1; 3 with replication 3), e.g. 0,1,3; each Weaviate is filled with `mcpvec migrate --to` from the embedded library")
	fs.IntVar(&c.wvIngest, "weaviate-ingest", 8000, "side by side: also time an ingest of about this many passages (whole folders of the corpus) into each Weaviate (0: none)")
	fs.DurationVar(&c.settle, "settle", 15*time.Second, "side by side: wait this long after filling a Weaviate before searching (its nodes write memtables out after 5 s idle; BM25 lags until then)")
	fs.IntVar(&c.overhead, "overhead", 0, "instead: this many rounds measuring serve's CPU per call against the same searches in-process, and a no-op mcp-go server's capacity under the largest -clients load (needs -library; docs/benchmarks/serving-overhead.md)")
	fs.StringVar(&c.corpusOnly, "corpus-only", "", "only write the generated corpus to this folder and stop (for cmd/mcpvec-realtext build and bench/anchors)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if *setups != "" {
		var err error
		if c.setups, err = parseSetups(*setups); err != nil {
			return c, err
		}
	}
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-clients %q: want positive numbers separated by commas", *clients)
		}
		c.clients = append(c.clients, n)
	}
	if c.passages < 1 || c.starts < 1 || c.cliRuns < 1 || c.requests < 1 {
		return c, fmt.Errorf("-passages, -starts, -cli-runs and -requests must be positive")
	}
	if c.client != "raw" && c.client != "net" {
		return c, fmt.Errorf("-client %q: want raw or net", c.client)
	}
	return c, nil
}

func main() {
	if addr := os.Getenv(noopEnv); addr != "" {
		fmt.Fprintln(os.Stderr, "mcpvec-scale no-op server:", serveNoop(addr))
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil && c.corpusOnly != "" {
		err = corpusOnly(ctx, c)
	} else if err == nil && c.overhead > 0 {
		var rounds []overheadRound
		rounds, err = overhead(ctx, c, os.Stderr)
		overheadMarkdown(c, rounds, os.Stdout)
		err = errors.Join(err, writeJSON(c.jsonOut, rounds), writeOverheadLatencies(c.latencies, rounds))
	} else if err == nil && len(c.setups) > 0 {
		var rows []sideRow
		rows, err = sideBySide(ctx, c, os.Stderr)
		sideMarkdown(c, rows, os.Stdout)
	} else if err == nil {
		var r *results
		if r, err = run(ctx, c, os.Stderr); err == nil {
			err = emit(c, r, os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpvec-scale:", err)
		os.Exit(1)
	}
}

// emit prints the Markdown report and writes the JSON one and the calls'
// latencies when asked.
func emit(c config, r *results, out io.Writer) error {
	r.markdown(out)
	if c.latencies != "" {
		if err := writeLatencies(c.latencies, r.Load); err != nil {
			return err
		}
	}
	return writeJSON(c.jsonOut, r)
}

// writeJSON writes v indented to path, when path is not "".
func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
