package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/internal/golden"
)

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
					c.Index, c.PageStart, c.PageEnd, c.Start, c.End, analysis.EstimateTokens(c.Text), c.Text)
			}
			golden.Compare(t, filepath.Join("..", "..", "testdata", "chunk", name, "passages.txt"), []byte(b.String()))
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
