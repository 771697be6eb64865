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
)

const page = `<html><head><title>T</title><script>var x = 1;</script></head><body>
<div class="related" role="navigation">Navigation index modules next previous</div>
<div role="main"><h1>Frobnicating widgets<a class="headerlink" href="#x">¶</a></h1>
<p>The frobnicator turns <b>every</b> widget into a &lt;gadget&gt; within seconds. It is quick.</p>
<h2>Configuring the frobnicator daemon</h2>
<p>Set FROB_LEVEL to 3 before starting the daemon on each host.</p>
<pre>frob --level 3
  # not a heading</pre>
<p>1. A line that looks like a list item but is not one at all, really.</p>
</div>
<div class="sphinxsidebar">Quick search Table of contents</div></body></html>`

// TestConvertHTML: the main text only, headings as Markdown headings, and
// Markdown that reads back as the page's words.
func TestConvertHTML(t *testing.T) {
	md, err := htmlToMarkdown(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Frobnicating widgets\n", "## Configuring the frobnicator daemon\n", `a \<gadget\> within`, "~~~~~~~~\nfrob --level 3\n  # not a heading\n~~~~~~~~", `1\. A line`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"Navigation", "Quick search", "var x", "¶"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q:\n%s", bad, md)
		}
	}
}

// TestBuildDeterministic converts a page, builds twice and checks the
// files are byte-identical, every query points at a passage holding its
// source and drops words of it.
func TestBuildDeterministic(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	var list bytes.Buffer
	for i := range 6 {
		p := filepath.Join(src, fmt.Sprintf("p%d.html", i))
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		body := strings.ReplaceAll(page, "widgets", fmt.Sprintf("widgets%d", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&list, "pkg\t%s\n", p)
	}
	ctx := context.Background()
	if err := run(ctx, []string{"convert", "-out", filepath.Join(dir, "docs")}, &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	for i := range outs {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		if err := run(ctx, []string{"build", "-docs", filepath.Join(dir, "docs"), "-out", out, "-max", "3", "-queries", "5", "-link"}, nil, io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"passages.tsv", "queries.tsv", "docs.txt"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = append(outs[i], b...)
		}
		checkQueries(t, out)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two builds differ")
	}
}

func checkQueries(t *testing.T, out string) {
	t.Helper()
	passages := map[string]string{}
	pb, _ := os.ReadFile(filepath.Join(out, "passages.tsv"))
	for _, line := range strings.Split(strings.TrimSpace(string(pb)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		passages[f[0]+"#"+f[1]] = strings.ReplaceAll(f[2], `\n`, " ")
	}
	if got, want := len(passages), 3; got < want {
		t.Errorf("passages %d, want at least %d", got, want)
	}
	qb, _ := os.ReadFile(filepath.Join(out, "queries.tsv"))
	lines := strings.Split(strings.TrimSpace(string(qb)), "\n")
	if got, want := len(lines), 5; got != want {
		t.Fatalf("queries %d, want %d", got, want)
	}
	for _, line := range lines {
		f := strings.Split(line, "\t")
		text, ok := passages[f[1]+"#"+f[2]]
		if !ok || !strings.Contains(strings.Join(strings.Fields(text), " "), f[5]) {
			t.Errorf("query %s: passage %s#%s does not hold %q", f[0], f[1], f[2], f[5])
		}
		if q, s := len(strings.Fields(f[4])), len(strings.Fields(f[5])); q >= s || q < 2 {
			t.Errorf("query %q of %q: %d words of %d", f[4], f[5], q, s)
		}
		if _, err := os.Stat(filepath.Join(out, "lib", f[1])); err != nil {
			t.Errorf("document not linked: %v", err)
		}
	}
}

// TestConvertResume: with -resume a page whose Markdown exists is kept as
// it is and the others are converted; without it every page is converted
// again. No temporary file is left behind.
func TestConvertResume(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("p%d.html", i))
		body := strings.ReplaceAll(page, "daemon", fmt.Sprintf("daemon%d", i)) // not repeats of each other
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&list, "pkg\t%s\n", p)
	}
	docs := filepath.Join(dir, "docs")
	done := outName(docs, "pkg", filepath.Join(dir, "p0.html"))
	if err := os.MkdirAll(filepath.Dir(done), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		resume bool
		want   string
	}{{true, "converted before"}, {false, "# Frobnicating widgets"}} {
		if err := os.WriteFile(done, []byte("converted before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"convert", "-out", docs}
		if tc.resume {
			args = append(args, "-resume")
		}
		if err := run(context.Background(), args, strings.NewReader(list.String()), io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(done)
		if err != nil || !strings.HasPrefix(string(b), tc.want) {
			t.Errorf("resume %v: p0's Markdown %.40q (%v), want it to start %q", tc.resume, b, err, tc.want)
		}
		other, err := os.ReadFile(outName(docs, "pkg", filepath.Join(dir, "p1.html")))
		if err != nil || !strings.Contains(string(other), "# Frobnicating widgets") {
			t.Errorf("resume %v: p1 not converted: %v", tc.resume, err)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(done), "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestConvertSkipsRepeats: a file with the same bytes as one listed before
// it (vtk9-doc installs its pages twice) gives no Markdown, and Markdown an
// earlier run wrote for it is removed; a file of the same size with other
// bytes is converted.
func TestConvertSkipsRepeats(t *testing.T) {
	dir := t.TempDir()
	other := strings.ReplaceAll(page, "widgets", "gadgets") // same size, other bytes
	var list strings.Builder
	for i, body := range []string{page, page, other} {
		p := filepath.Join(dir, fmt.Sprintf("p%d.html", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&list, "pkg\t%s\n", p)
	}
	docs := filepath.Join(dir, "docs")
	repeat := outName(docs, "pkg", filepath.Join(dir, "p1.html"))
	if err := os.MkdirAll(filepath.Dir(repeat), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(repeat, []byte("converted before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"convert", "-resume", "-out", docs}, strings.NewReader(list.String()), io.Discard); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true} {
		_, err := os.Stat(outName(docs, "pkg", filepath.Join(dir, fmt.Sprintf("p%d.html", i))))
		if got := err == nil; got != want {
			t.Errorf("p%d.html has Markdown: %v, want %v", i, got, want)
		}
	}
}
