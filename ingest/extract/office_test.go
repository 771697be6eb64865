package extract

import (
	"bytes"
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
// each page after a "--- page N ---" line, then the headings, if any, one
// a line: level, page, the first words of the text at the heading's
// offset, and the title.
func render(doc *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\ntype: %s\n", doc.Title, doc.MediaType)
	for i, p := range doc.Pages {
		fmt.Fprintf(&b, "--- page %d ---\n%s\n", i+1, p)
	}
	if len(doc.Headings) > 0 {
		b.WriteString("--- headings ---\n")
	}
	for _, h := range doc.Headings {
		at := doc.Pages[h.Page][h.Offset:]
		at, _, _ = strings.Cut(at, "\n")
		fmt.Fprintf(&b, "h%d p%d at %q: %s\n", h.Level, h.Page+1, cutRunes(at, 24), h.Title)
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
			data := fixtureFile(t, input, func() []byte { return tc.data })
			if !bytes.Equal(data, tc.data) {
				t.Errorf("%s differs from the generator's output; run go test -update", input)
			}
			doc := mustExtract(t, tc.file, data)
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
