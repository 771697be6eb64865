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
	passages, queries := smokeSet(t, dir)
	engines := "mcpvec,fts5,bleve"
	if _, err := luceneClasspath(); err != nil {
		t.Logf("Lucene row skipped: %v", err)
	} else {
		engines += ",lucene"
	}
	c, err := parseFlags([]string{"-passages", passages, "-queries", queries,
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

// TestMaxQueriesSpread: -max-queries takes queries spread over the whole
// list (queries.tsv is sorted by document, so the first N would come from
// a few packages), and all of them without it.
func TestMaxQueriesSpread(t *testing.T) {
	var qs []query
	for i := range 10 {
		qs = append(qs, query{id: fmt.Sprint(i)})
	}
	var got []string
	for _, q := range spread(qs, 4) {
		got = append(got, q.id)
	}
	if got, want := strings.Join(got, ","), "0,2,5,7"; got != want {
		t.Errorf("spread(10 queries, 4) = %s, want %s", got, want)
	}
	if got, want := len(spread(qs, 0)), 10; got != want {
		t.Errorf("spread(10 queries, 0) has %d, want %d", got, want)
	}
}

// TestPassagesTextOnlyWhenIndexed: a run of Lucene and mcpvec (Lucene
// reads passages.tsv itself, mcpvec's build reads it one passage at a
// time) and -combine read the passages without their text, which at 1M
// passages is ~1.4 GB held for nothing.
func TestPassagesTextOnlyWhenIndexed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passages.tsv")
	if err := os.WriteFile(path, []byte("a.md\t0\tone\\ttwo\na.md\t1\tthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-engines", "lucene"}, ""},
		{[]string{"-combine", "rows"}, ""},
		{[]string{"-engines", "mcpvec,lucene"}, ""},
		{[]string{"-engines", "mcpvec"}, ""},
		{[]string{"-engines", "mcpvec,bleve"}, "one\ttwo"},
		{[]string{"-engines", "lucene,fts5"}, "one\ttwo"},
	} {
		c, err := parseFlags(append([]string{"-passages", path, "-queries", path}, tc.args...), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := readPassages(c.passages, c.needText())
		if err != nil {
			t.Fatal(err)
		}
		if got := ps[0].text; got != tc.want || ps[1].doc != "a.md" || ps[1].index != 1 {
			t.Errorf("%v: passage 0 text %q (want %q), passage 1 %+v", tc.args, got, tc.want, ps[1])
		}
	}
}

// smokeSet writes 60 small passages and 12 known-item queries in dir and
// returns the paths of passages.tsv and queries.tsv.
func smokeSet(t *testing.T, dir string) (passages, queries string) {
	t.Helper()
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
	return write("passages.tsv", ps.String()), write("queries.tsv", qs.String())
}

// TestCombineCutsFullRows: a row saved with every query (mcpvec's, say)
// and one saved with -max-queries (a slow engine's) are reported together
// on the same queries.
func TestCombineCutsFullRows(t *testing.T) {
	dir := t.TempDir()
	passages, queries := smokeSet(t, dir)
	rows := filepath.Join(dir, "rows")
	for _, args := range [][]string{
		{"-engines", "mcpvec"},
		{"-engines", "fts5", "-max-queries", "5"},
		{"-combine", rows, "-max-queries", "5"},
	} {
		c, err := parseFlags(append([]string{"-passages", passages, "-queries", queries, "-rounds", "1",
			"-work", filepath.Join(dir, "work"), "-save", rows}, args...), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(c, &out, io.Discard); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if args[0] != "-combine" {
			continue
		}
		if !strings.Contains(out.String(), "5 queries") || strings.Count(out.String(), " | 1.000 | ") != 2 {
			t.Errorf("combined report, want 5 queries and two rows finding every passage:\n%s", out.String())
		}
	}
}
