package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractKitUnits checks that extracttest's unit generators give one
// page per unit with its text, markup-like text kept as text, and the
// title, in every format.
func TestExtractKitUnits(t *testing.T) {
	title := `Kit <test> & "units"`
	units := []string{"Alpha first unit\nsecond line of alpha", `Beta <script>x</script> & "quoted" café`, "Gamma | 3\nlast row | 4"}
	for file, data := range map[string][]byte{
		"k.docx": extracttest.DOCX(t, title, units...),
		"k.pptx": extracttest.PPTX(t, title, units...),
		"k.xlsx": extracttest.XLSX(t, title, units...),
		"k.odt":  extracttest.ODT(t, title, units...),
		"k.odp":  extracttest.ODP(t, title, units...),
		"k.ods":  extracttest.ODS(t, title, units...),
		"k.epub": extracttest.EPUB(t, title, units...),
		"k.rtf":  extracttest.RTF(title, units...),
	} {
		doc, err := mustExtractor(t).Extract(context.Background(), file, data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if doc.Title != title || len(doc.Pages) != len(units) {
			t.Errorf("%s: title %q, %d pages %q", file, doc.Title, len(doc.Pages), doc.Pages)
			continue
		}
		for i, want := range []string{"Alpha first unit", `Beta <script>x</script> & "quoted" café`, "Gamma"} {
			if !strings.Contains(doc.Pages[i], want) {
				t.Errorf("%s page %d = %q, want %q in it", file, i+1, doc.Pages[i], want)
			}
		}
	}
}
