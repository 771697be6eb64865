package chunk

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under ../../testdata/chunk")

// TestChunkGolden splits the pinned text of each case under
// ../../testdata/extract/<case>/ (pages joined as ingest joins them, with a
// blank line between pages) with the default options and compares the
// passages, their pages and token estimates with
// ../../testdata/chunk/<case>/passages.txt. Run with -update to accept a
// change.
func TestChunkGolden(t *testing.T) {
	for _, name := range []string{"cats", "harbour", "ledger"} {
		t.Run(name, func(t *testing.T) {
			pages, err := filepath.Glob(filepath.Join("..", "..", "testdata", "extract", name, "page-*.txt"))
			if err != nil || len(pages) == 0 {
				t.Fatalf("no pages for %s (%v): run go test -run TestExtractGolden -update in ingest/extract", name, err)
			}
			text, starts := joinGoldenPages(t, pages)
			chunks, err := Split(text, starts, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, c := range chunks {
				fmt.Fprintf(&b, "=== passage %d: pages %d-%d, bytes %d-%d, ~%d tokens\n%s\n",
					c.Index, c.PageStart, c.PageEnd, c.Start, c.End, EstimateTokens(c.Text), c.Text)
			}
			golden := filepath.Join("..", "..", "testdata", "chunk", name, "passages.txt")
			compareGolden(t, golden, b.String())
		})
	}
}

// joinGoldenPages reads the page files in order and joins them as ingest
// does, returning the text and where each page starts.
func joinGoldenPages(t *testing.T, paths []string) (string, []int) {
	t.Helper()
	var b strings.Builder
	starts := make([]int, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		starts[i] = b.Len()
		b.Write(data)
	}
	return b.String(), starts
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestChunkGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -run TestChunkGolden -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
