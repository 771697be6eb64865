package extract

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/internal/golden"
)

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
		fmt.Fprintf(&b, "h%d p%d at %q: %s\n", h.Level, h.Page+1, core.CutRunes(at, 24), h.Title)
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
			data := golden.Fixture(t, input, func() []byte { return tc.data })
			if !bytes.Equal(data, tc.data) {
				t.Errorf("%s differs from the generator's output; run go test -update", input)
			}
			doc := mustExtract(t, tc.file, data)
			golden.Compare(t, filepath.Join(dir, "want.txt"), []byte(render(doc)))
		})
	}
}
