package extract

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

var update = flag.Bool("update", false, "rewrite the fixtures and golden files under testdata/formats and ../../testdata/{pdfs,extract}")

// formatCases are the generated fixtures: a case name and its file name.
func formatCases(tb testing.TB) map[string]struct {
	file string
	data []byte
} {
	type c = struct {
		file string
		data []byte
	}
	return map[string]c{
		"docx": {"cats.docx", extracttest.CatsDOCX(tb)},
		"pptx": {"cats.pptx", extracttest.CatsPPTX(tb)},
		"xlsx": {"cats.xlsx", extracttest.CatsXLSX(tb)},
		"odt":  {"cats.odt", extracttest.CatsODT(tb)},
		"odp":  {"cats.odp", extracttest.CatsODP(tb)},
		"ods":  {"cats.ods", extracttest.CatsODS(tb)},
		"epub": {"cats.epub", extracttest.CatsEPUB(tb)},
		"rtf":  {"cats.rtf", extracttest.CatsRTF()},
	}
}

// render shows a document as golden text: the title, the media type, then
// each page after a "--- page N ---" line.
func render(doc *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\ntype: %s\n", doc.Title, doc.MediaType)
	for i, p := range doc.Pages {
		fmt.Fprintf(&b, "--- page %d ---\n%s\n", i+1, p)
	}
	return b.String()
}

// TestExtractFormats compares the extraction of each committed fixture
// with its golden file, and checks the fixture is what the generator
// makes. -update rewrites both.
func TestExtractFormats(t *testing.T) {
	for name, tc := range formatCases(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "formats", name)
			input := filepath.Join(dir, tc.file)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(input, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, tc.data) {
				t.Errorf("%s differs from the generator's output; run go test -update", input)
			}
			doc, err := mustExtractor(t).Extract(context.Background(), tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join(dir, "want.txt"), render(doc))
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
