package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnchorsSmoke runs every engine on 60 small passages and 12
// known-item queries: each finds every query's passage, and the report has
// a row per engine. Lucene's row is skipped, with the reason, when java,
// javac or liblucene8-java is missing.
func TestAnchorsSmoke(t *testing.T) {
	dir := t.TempDir()
	words := strings.Fields("river mountain harbour lantern violin quartz meadow copper orchard glacier " +
		"falcon tunnel saddle beacon prism walnut ferry marble canyon thistle")
	var ps, qs strings.Builder
	for i := range 60 {
		a, b, c := words[i%20], words[(i*7+3)%20], words[(i*13+5)%20]
		fmt.Fprintf(&ps, "doc%02d.md\t0\tThe %s near the %s\\nkeeps a %s number %d.\n", i, a, b, c, i)
		if i%5 == 0 {
			fmt.Fprintf(&qs, "q%d\tdoc%02d.md\t0\tsentence\t%s %s %s %d\tsource\n", i, i, a, b, c, i)
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	engines := "mcpvec,fts5,bleve"
	if _, err := luceneClasspath(); err != nil {
		t.Logf("Lucene row skipped: %v", err)
	} else {
		engines += ",lucene"
	}
	c, err := parseFlags([]string{"-passages", write("passages.tsv", ps.String()), "-queries", write("queries.tsv", qs.String()),
		"-engines", engines, "-rounds", "1", "-work", filepath.Join(dir, "work")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(c, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, " MB | ") && !strings.Contains(line, "B a passage") {
			rows++
			if f := strings.Split(line, " | "); f[7] != "1.000" {
				t.Errorf("success@10 %s, want 1.000: %s", f[7], line)
			}
		}
	}
	if got, want := rows, len(strings.Split(engines, ",")); got != want {
		t.Errorf("%d engine rows, want %d:\n%s", got, want, out.String())
	}
}
