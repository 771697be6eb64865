package extract

import (
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractTitleFromHeading: Word, ODT and PowerPoint files without a
// metadata title take their first heading (first slide title) as title,
// rather than leaving the caller the file name.
func TestExtractTitleFromHeading(t *testing.T) {
	const heading = "Feeding Schedules for Indoor Cats"
	for name, data := range map[string][]byte{
		"untitled.docx": extracttest.UntitledDOCX(t, heading),
		"untitled.odt":  extracttest.UntitledODT(t, heading),
		"untitled.pptx": extracttest.UntitledPPTX(t, heading),
	} {
		if got := mustExtract(t, name, data).Title; got != heading {
			t.Errorf("%s: title %q, want %q", name, got, heading)
		}
	}
	if got, want := mustExtract(t, "titled.docx", extracttest.DOCX(t, "Metadata Title", "Body.")).Title, "Metadata Title"; got != want {
		t.Errorf("metadata title %q, want %q", got, want)
	}
	if got := mustExtract(t, "sheet.xlsx", extracttest.XLSX(t, "", "Sheet1\na | b")).Title; got != "" {
		t.Errorf("spreadsheet title %q, want none (a sheet name is no title)", got)
	}
}
