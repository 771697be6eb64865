package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// goldenPDFs are the PDFs whose extraction is pinned by golden files under
// ../../testdata/extract/<case>/: the demo document and two PDFs this
// package's generator writes to ../../testdata/pdfs/ with -update.
var goldenPDFs = []struct {
	name string
	path string
	gen  *testPDF // nil: a committed file made elsewhere
}{
	{"cats", catsPath, nil},
	{"harbour", filepath.Join("..", "..", "testdata", "pdfs", "harbour.pdf"), &harbourPDF},
	{"ledger", filepath.Join("..", "..", "testdata", "pdfs", "ledger.pdf"), &ledgerPDF},
}

// harbourPDF is prose whose paragraphs run across page breaks, with
// accented Latin-1 letters and punctuation that WinAnsi encodes.
var harbourPDF = testPDF{Title: "Notes on a Small Harbour", Pages: [][]string{
	append(wrap("The harbour lies at the mouth of a slow river. Fishing boats tie up along the north quay, and the ferry to the islands leaves from the south side twice a day in summer and once a day in winter.", 80),
		append([]string{""}, wrap("The café by the slipway opens at six for the crews; its owner, a retired pilot, keeps a tide table chalked on the wall and corrects it by hand when a storm surge makes the printed one wrong. Visitors are told, politely, that the naïve question of when the tide turns has no single answer here", 80)...)...),
	append(wrap("because the river and the sea argue about it every day. The lighthouse keeper's log — kept since 1887 — records fog on one day in four between October and March.", 80),
		append([]string{""}, wrap("Boats leaving after dark must show a white masthead light and red and green sidelights; the harbour master fines anyone who does not, and the fine is paid in the café, in coins, into a jar marked « Lifeboat ».", 80)...)...),
	wrap("In short: arrive on the rising tide, ask at the café, and expect fog.", 80),
}}

// ledgerPDF is short lines of figures, a blank second page and a page in a
// larger font, the shapes of a form or a statement.
var ledgerPDF = testPDF{Title: "Quarterly Ledger", FontSize: 12, Pages: [][]string{
	{"Quarterly Ledger", "", "Item              Q1       Q2       Q3", "Rope (m)          120      95       140",
		"Diesel (l)        1,800    2,150    1,975", "Paint (tins)      14       9        22", "", "Total spent: 4,612.50 EUR"},
	{},
	{"Signed by the treasurer on 30 September.", "Next review: end of December."},
}}

// TestExtractGolden extracts each golden PDF and compares its title and
// the text of every page with testdata/extract/<case>/. Run with -update to
// regenerate the generated PDFs and accept new output.
func TestExtractGolden(t *testing.T) {
	for _, tc := range goldenPDFs {
		t.Run(tc.name, func(t *testing.T) {
			var gen func() []byte
			if tc.gen != nil {
				gen = func() []byte { return tc.gen.Bytes(t) }
			}
			data := golden.Fixture(t, tc.path, gen)
			doc := mustExtract(t, tc.name+".pdf", data)
			dir := filepath.Join("..", "..", "testdata", "extract", tc.name)
			files := map[string]string{"title.txt": doc.Title + "\n"}
			for i, p := range doc.Pages {
				files[fmt.Sprintf("page-%03d.txt", i+1)] = p
			}
			compareDir(t, dir, files)
		})
	}
}

// compareDir compares files (name to content) with the files of dir; with
// -update it rewrites dir to hold exactly them.
func compareDir(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if golden.Update() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	} else if entries, err := os.ReadDir(dir); err == nil && len(entries) != len(files) {
		t.Errorf("%s holds %d files, extraction gives %d", dir, len(entries), len(files))
	}
	for name, got := range files {
		golden.Compare(t, filepath.Join(dir, name), []byte(got))
	}
}
