package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/evalset"
)

const shared = "../../../shared"

// TestScaleSmoke runs the whole harness at ~1,000 passages against the
// real binary built from this module, and checks that every phase measured
// something and no search call failed. It takes 13 s with -race on the
// 2-core machine at load average 5 (the binary's build cached); -short skips it.
func TestScaleSmoke(t *testing.T) {
	lat := filepath.Join(t.TempDir(), "latencies.txt")
	c := smokeConfig(t, "-requests", "200", "-cli-runs", "3", "-label", "smoke", "-latencies", lat)
	r, err := run(context.Background(), c, testOutput{t})
	if err != nil {
		t.Fatal(err)
	}
	if r.Ingest == nil || r.Ingest.Passages != r.Passages || r.Passages < 800 || r.Passages > 1200 {
		t.Errorf("ingest %+v, info says %d passages; want the same count near 1000", r.Ingest, r.Passages)
	}
	if !strings.Contains(r.Info, "(64 dimensions)") {
		t.Errorf("-dimensions 64 did not reach ingest: %s", r.Info)
	}
	if len(r.Starts) != 2 || r.Starts[1].ReadyMs <= 0 || r.Starts[1].RSSAfterLoad <= 0 || r.RSSUnderLoad < r.Starts[1].RSSAfterLoad/2 {
		t.Errorf("serve figures %+v, under load %d", r.Starts, r.RSSUnderLoad)
	}
	for _, l := range r.Load {
		if l.Errors != 0 || l.Requests != 200 || l.P50ms <= 0 || l.P99ms < l.P50ms || l.Maxms < l.P99ms {
			t.Errorf("load %+v", l)
		}
	}
	if len(r.CLISearchMs) != 3 || r.CLIMedianMs <= 0 {
		t.Errorf("CLI search %v", r.CLISearchMs)
	}
	var md bytes.Buffer
	r.markdown(&md)
	if !strings.Contains(md.String(), "| MCP search, 16 clients |") {
		t.Errorf("report has no 16-client row:\n%s", md.String())
	}
	if err := emit(c, r, io.Discard); err != nil {
		t.Fatal(err)
	}
	checkLatencies(t, lat, r.Load)
}

// checkLatencies checks the -latencies file: a line per call of each
// phase, in the phase's order, with the phase's client count, starts that
// never fall, latencies within the phase's maximum and a real query index.
func checkLatencies(t *testing.T, path string, phases []loadFigures) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := evalset.QueryTexts(filepath.Join(shared, "eval", "scifact", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	i := 0
	for _, f := range phases {
		last := -1.0
		for range f.Requests {
			if i >= len(lines) {
				t.Fatalf("%d lines for phases %+v", len(lines), phases)
			}
			var clients, query int
			var start, took float64
			if _, err := fmt.Sscanf(lines[i], "%d %f %f %d", &clients, &start, &took, &query); err != nil {
				t.Fatalf("line %q: %v", lines[i], err)
			}
			if clients != f.Clients || start < last || took <= 0 || took > f.Maxms || query < 0 || query >= len(claims) {
				t.Errorf("line %q in the %d-client phase (max %.3f ms)", lines[i], f.Clients, f.Maxms)
			}
			last = start
			i++
		}
	}
	if i != len(lines) {
		t.Errorf("%d lines for %d calls", len(lines), i)
	}
}

// smokeConfig skips a smoke test under -short or without SciFact, and
// otherwise returns the flags of a ~1,000-passage run of 64-dimension
// vectors from the binary built from this module, plus extra.
func smokeConfig(t *testing.T, extra ...string) config {
	t.Helper()
	if testing.Short() {
		t.Skip("builds, ingests and serves the real binary")
	}
	if _, err := os.Stat(filepath.Join(shared, "eval", "scifact", "corpus.jsonl")); err != nil {
		t.Skipf("SciFact is not at %s: %v", shared, err)
	}
	c, err := parseFlags(append([]string{"-shared", shared, "-src", "../..", "-passages", "1000", "-dimensions", "64"}, extra...), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCorpusDeterministic checks that a file depends only on (seed, i) and
// that sentences are cut where abstracts end them.
func TestCorpusDeterministic(t *testing.T) {
	p := &pool{titles: []string{"Alpha beta gamma delta", "Epsilon zeta eta theta iota"}}
	p.sentences = sentences("One cell divides. Two cells divide, e.g. in culture. 3 mice died. The end")
	if got, want := len(p.sentences), 4; got != want {
		t.Fatalf("sentences %q: got %d, want %d", p.sentences, got, want)
	}
	if a, b := p.document(1, 7), p.document(1, 7); a != b {
		t.Errorf("document(1, 7) differs between calls")
	}
	if a, b := p.document(1, 7), p.document(2, 7); a == b {
		t.Errorf("seeds 1 and 2 give the same document")
	}
	if d := p.document(1, 7); !strings.HasPrefix(d, "# ") || !strings.Contains(d, "\n## ") {
		t.Errorf("document has no title or section heading:\n%s", d)
	}
}

func TestParseOutputs(t *testing.T) {
	n, err := ingestedPassages("ingested 2000 documents (2000 pages, 14558 passages); 0 unchanged")
	if err != nil || n != 14558 {
		t.Errorf("ingestedPassages: %d, %v", n, err)
	}
	n, err = infoPassages("documents:  2000 (2000 pages)\npassages:   14558 (14558 vectors)\n")
	if err != nil || n != 14558 {
		t.Errorf("infoPassages: %d, %v", n, err)
	}
	if _, err := ingestedPassages("nothing"); err == nil {
		t.Error("ingestedPassages accepted output without a count")
	}
}

type testOutput struct{ t *testing.T }

func (w testOutput) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestCorpusOnly: -corpus-only writes the files run would ingest, and
// nothing else (no binary, no library).
func TestCorpusOnly(t *testing.T) {
	if _, err := os.Stat(filepath.Join(shared, "eval", "scifact", "corpus.jsonl")); err != nil {
		t.Skipf("SciFact is not at %s: %v", shared, err)
	}
	dir := t.TempDir()
	c, err := parseFlags([]string{"-shared", shared, "-passages", "40", "-corpus-only", dir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := corpusOnly(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.md"))
	if got, want := len(files), 10; got != want {
		t.Errorf("%d files, want %d (40 passages at %v a file)", got, want, passagesPerFile)
	}
}
