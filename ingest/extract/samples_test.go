package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestWriteDefectSamples writes the files that show the document defects
// of issue 34 into the folder named by MCPVEC_DEFECT_SAMPLES, for the
// before/after runs in docs/benchmarks/document-defects.md; without it the
// test is skipped.
func TestWriteDefectSamples(t *testing.T) {
	dir := os.Getenv("MCPVEC_DEFECT_SAMPLES")
	if dir == "" {
		t.Skip("MCPVEC_DEFECT_SAMPLES not set")
	}
	var faq strings.Builder
	for q := range 40 { // as TestSplitKeepsQuestionWithAnswer's faq in ingest/chunk
		fmt.Fprintf(&faq, "How do I reset lock number %d?\n\n", q+1)
		for p := range 1 + q%3 {
			for s := range 2 + (q*7+p*3)%5 {
				fmt.Fprintf(&faq, "Press button %d for sentence %d of paragraph %d, then wait. ", q+1, s+1, p+1)
			}
			faq.WriteString("\n\n")
		}
	}
	files := map[string][]byte{
		"a-owner-only.pdf":     testPDF{Title: "Open", Pages: [][]string{{"Anyone may read this page."}}, Owner: "boss"}.Bytes(t),
		"a-secret.pdf":         testPDF{Title: "Secret", Pages: [][]string{{"Only with the password."}}, Password: "meow"}.Bytes(t),
		"b-notes.docx":         extracttest.NotesDOCX(t),
		"c-protected.docx":     extracttest.OLE("EncryptedInfo", "EncryptedPackage"),
		"c-old-word.docx":      extracttest.OLE("WordDocument", "1Table"),
		"d-dates1904.xlsx":     extracttest.DatesXLSX(t, true),
		"e-untitled.docx":      extracttest.UntitledDOCX(t, "Feeding Schedules for Indoor Cats"),
		"e-untitled.odt":       extracttest.UntitledODT(t, "Feeding Schedules for Indoor Cats"),
		"e-untitled.pptx":      extracttest.UntitledPPTX(t, "Feeding Schedules for Indoor Cats"),
		"f-faq.txt":            []byte(faq.String()),
		"g-short-then-long.md": []byte("# Feeding\n\nCats eat twice a day.\n\n# Grooming\n\n" + strings.Repeat("Brush the coat weekly and check the claws. ", 12) + "\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
