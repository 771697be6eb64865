package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// results is everything one run measured; it is also the JSON report.
type results struct {
	Label         string         `json:"label,omitempty"`
	Date          string         `json:"date"`
	Binary        string         `json:"binary"`
	Library       string         `json:"library"`
	CPUs          int            `json:"cpus"`
	Dimensions    int            `json:"dimensions_flag,omitempty"`
	Passages      int            `json:"passages"`
	FileBytes     int64          `json:"file_bytes"`
	Generate      *genFigures    `json:"generate,omitempty"`
	Ingest        *ingestFigures `json:"ingest,omitempty"`
	Starts        []startFigures `json:"serve_starts"`
	RSSAfter      time.Duration  `json:"rss_after_ns,omitempty"`
	RSSUnderLoad  int64          `json:"rss_under_load_bytes"`
	AnonUnderLoad int64          `json:"anon_under_load_bytes"`
	ServeHWM      int64          `json:"serve_peak_rss_bytes"`
	AfterLoad     rssBreakdown   `json:"smaps_after_load"`
	Load          []loadFigures  `json:"load"`
	CLISearchMs   []float64      `json:"cli_search_ms"`
	CLIMedianMs   float64        `json:"cli_search_median_ms"`
	CLIPeakRSS    int64          `json:"cli_search_peak_rss_bytes"`
	Info          string         `json:"info"`
}

type genFigures struct {
	Seed    uint64  `json:"seed"`
	Files   int     `json:"files"`
	Seconds float64 `json:"seconds"`
}

type ingestFigures struct {
	Passages  int     `json:"passages"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"passages_per_second"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
	PeakAnon  int64   `json:"peak_anon_bytes"`
}

type startFigures struct {
	ReadyMs      float64      `json:"ready_ms"`
	RSSAfterLoad int64        `json:"rss_after_load_bytes"`
	Breakdown    rssBreakdown `json:"smaps"`
	// RSSLater is the RSS -rss-after past ready (0: not read), when a
	// background load has ended.
	RSSLater       int64        `json:"rss_later_bytes,omitempty"`
	LaterBreakdown rssBreakdown `json:"smaps_later"`
	// FreshPageUs is childproc.PageProbe just before this start: the
	// host's price of the memory serve's load touches first.
	FreshPageUs float64 `json:"fresh_page_us"`
	// ReadyCPUms is serve's CPU time (user + system) from its start to
	// ready: comparable across hosts' loads where ReadyMs is not.
	ReadyCPUms float64 `json:"ready_cpu_ms"`
	// FirstSearchMs is the latency of the first search call after ready,
	// on a new session (0: not measured).
	FirstSearchMs float64 `json:"first_search_ms,omitempty"`
}

var infoPassagesRE = regexp.MustCompile(`(?m)^passages:\s+(\d+)`)

// infoPassages reads the passage count from `mcpvec info`.
func infoPassages(out string) (int, error) {
	m := infoPassagesRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no passage count in info output %q", childproc.Tail(out, 300))
	}
	return strconv.Atoi(m[1])
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// markdown writes the figures as one table of measure, value and the
// issue-16 goal for the library's size (the 1M goals from 500k passages).
func (r *results) markdown(out io.Writer) {
	big := r.Passages >= 500_000
	goal := func(small, large string) string {
		if big {
			return large
		}
		return small
	}
	fmt.Fprintf(out, "### %s: %d passages, %s file (%s, %d CPUs)\n\n", r.Label, r.Passages, mib(r.FileBytes), r.Date, r.CPUs)
	fmt.Fprintln(out, "| measure | value | goal |\n|---|---|---|")
	row := func(m, v, g string) { fmt.Fprintf(out, "| %s | %s | %s |\n", m, v, g) }
	if g := r.Generate; g != nil {
		row("corpus generated", fmt.Sprintf("%d files in %.1f s (seed %d)", g.Files, g.Seconds, g.Seed), "")
	}
	if in := r.Ingest; in != nil {
		row("ingest", fmt.Sprintf("%.0f passages/s (%.0f s wall)", in.PerSecond, in.Seconds), goal("", "completes"))
		row("ingest peak RSS", fmt.Sprintf("%s (anonymous %s)", mib(in.PeakRSS), mib(in.PeakAnon)), "")
	}
	for i, s := range r.Starts {
		row(fmt.Sprintf("serve ready (start %d)", i+1), fmt.Sprintf("%.0f ms, CPU %.0f ms (fresh memory %.2f µs a 4 KB page); first search %.1f ms", s.ReadyMs, s.ReadyCPUms, s.FreshPageUs, s.FirstSearchMs), goal("≤ 500 ms", "≤ 1 s"))
		row(fmt.Sprintf("RSS after load (start %d)", i+1), fmt.Sprintf("%s (anon %s, file %s)", mib(s.RSSAfterLoad), mib(s.Breakdown.Anonymous), mib(s.Breakdown.File)), goal("≤ 600 MB", "≤ 5 GB"))
		if s.RSSLater > 0 {
			row(fmt.Sprintf("RSS %s after ready (start %d)", r.RSSAfter, i+1), fmt.Sprintf("%s (anon %s, file %s)", mib(s.RSSLater), mib(s.LaterBreakdown.Anonymous), mib(s.LaterBreakdown.File)), goal("≤ 600 MB", "≤ 5 GB"))
		}
	}
	row("RSS under load (max)", fmt.Sprintf("%s (anon max %s; after: anon %s, file %s)", mib(r.RSSUnderLoad), mib(r.AnonUnderLoad), mib(r.AfterLoad.Anonymous), mib(r.AfterLoad.File)), goal("≤ 600 MB", "≤ 5 GB"))
	for _, l := range r.Load {
		g := ""
		switch {
		case l.Clients == 1 && !big:
			g = "p50 ≤ 1.5 ms"
		case l.Clients == 16:
			g = goal("≥ 2000 req/s, p99 ≤ 15 ms", "p99 ≤ 30 ms")
		}
		row(fmt.Sprintf("MCP search, %d clients", l.Clients), fmt.Sprintf("%.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms, serve CPU %.2f ms/call, harness %.2f (%d calls, %d errors%s)", l.PerSecond, l.P50ms, l.P99ms, l.Maxms, l.ServeCPUms, l.HarnessCPUms, l.Requests, l.Errors, l.Host.String()), g)
	}
	row("CLI search (median)", fmt.Sprintf("%.0f ms of %d; peak RSS %s", r.CLIMedianMs, len(r.CLISearchMs), mib(r.CLIPeakRSS)), goal("≤ 500 ms", ""))
	fmt.Fprintln(out)
}
