package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mcpvec/mcpvec/ingest/extract"
)

// tinyPDF returns a one-page PDF showing text (Helvetica, no compression).
func tinyPDF(text string) []byte {
	content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	objs := []string{
		"<</Type/Catalog/Pages 2 0 R>>",
		"<</Type/Pages/Kids[3 0 R]/Count 1>>",
		"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
		fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream", len(content), content),
		"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}

// BenchmarkServeWatchEditedPDF measures change-to-searchable latency while
// serving: a PDF in a watched folder is rewritten with a new word, and the
// clock stops when an MCP search returns it. The default quiet period
// (1s) is part of the latency; extract-ms is the extraction alone.
// Run: go test -run '^$' -bench ServeWatchEditedPDF -benchtime 5x ./cmd/mcpvec/
func BenchmarkServeWatchEditedPDF(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "lib.db")
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	pdf := filepath.Join(docs, "report.pdf")
	os.WriteFile(pdf, tinyPDF("Quarterly report on harbour cranes, version zero."), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(pdf, old, old)
	cmd := exec.Command(os.Args[0], "sync", docs)
	cmd.Env = childEnv(db)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("sync: %v\n%s", err, out)
	}
	s := startServe(b, db, "--watch")
	var extract time.Duration
	i := 0
	for b.Loop() {
		i++
		word := fmt.Sprintf("zebra%dquokka", i)
		data := tinyPDF("Quarterly report on harbour cranes, revised with " + word + ".")
		start := time.Now()
		if err := os.WriteFile(pdf, data, 0o644); err != nil {
			b.Fatal(err)
		}
		for !searchHas(b, s.c, word) {
			if time.Since(start) > time.Minute {
				b.Fatalf("%s never became searchable:\n%s", word, s.stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.StopTimer()
		extract += timeExtract(b, data)
		b.StartTimer()
	}
	b.ReportMetric(float64(extract.Milliseconds())/float64(i), "extract-ms")
}

func searchHas(tb testing.TB, c *client.Client, word string) bool {
	sr := mcpSearchJSON(tb, c, word)
	return len(sr.Results) > 0 && strings.Contains(sr.Results[0].Text, word)
}

func timeExtract(tb testing.TB, data []byte) time.Duration {
	ex, err := extract.New(context.Background(), extract.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ex.Close()
	start := time.Now()
	if _, err := ex.Extract(context.Background(), "report.pdf", data); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}
