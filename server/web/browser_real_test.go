package web_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// corpusEnv names a folder of real PDFs (e.g. the shared pdf.js corpus)
// for TestBrowserRealLibrary; the README's screenshots are taken from it.
const corpusEnv = "MCPVEC_WEB_CORPUS"

// maxCorpusPDFs bounds how many of the folder's PDFs are ingested.
const maxCorpusPDFs = 40

// TestBrowserRealLibrary looks at the library, search and document pages
// holding 30+ real documents (PDFs from $MCPVEC_WEB_CORPUS and Office
// files), at 1440 px and at phone width, checking that the controls fit
// and axe finds nothing serious. With -update its screenshots are the ones
// the README shows.
func TestBrowserRealLibrary(t *testing.T) {
	folder := os.Getenv(corpusEnv)
	if folder == "" {
		t.Skip("set " + corpusEnv + " to a folder of PDFs (e.g. /work/shared/pdfs/corpus) to look at a real library")
	}
	f := mustServe(t, fixtureOptions{})
	paths := append(corpusPDFs(t, folder), officeFiles(t)...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sum, err := f.Ingest(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ingested %s", sum)
	if sum.Ingested < 30 {
		t.Fatalf("only %d documents ingested, want 30 or more", sum.Ingested)
	}
	b := newBrowser(t)
	run(t, b, chromedp.Navigate(f.URL+"/"), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	for _, w := range []int64{1280, 1440} {
		run(t, b, chromedp.EmulateViewport(w, 900))
		measureTable(t, b, w)
	}
	shoot(t, b, "library")
	run(t, b, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.SendKeys("#q", "copyright law and free culture", chromedp.ByID),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits mark", chromedp.ByQuery))
	shoot(t, b, "search")
	// A report of some twenty pages, opened from the library as a person would.
	run(t, b, chromedp.Navigate(f.URL+"/?q=TAMReview"), chromedp.WaitVisible("table.docs", chromedp.ByQuery),
		chromedp.Click("table.docs tbody a", chromedp.ByQuery), chromedp.WaitVisible("nav.pagenav", chromedp.ByQuery))
	shoot(t, b, "document")
}

// corpusPDFs lists up to maxCorpusPDFs PDFs of folder, leaving out the
// files made to break readers (fuzzed, damaged).
func corpusPDFs(t *testing.T, folder string) []string {
	all, err := filepath.Glob(filepath.Join(folder, "*.pdf"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no PDFs in %s (%v)", folder, err)
	}
	broken := regexp.MustCompile(`(?i)fuzz|redhat|bad|broken|crash|poppler|protected|xref|cycle|overflow`)
	slices.Sort(all)
	var out []string
	for _, p := range all {
		if !broken.MatchString(filepath.Base(p)) && len(out) < maxCorpusPDFs {
			out = append(out, p)
		}
	}
	return out
}

// officeFiles writes a few Office, EPUB and Markdown documents of the
// kinds a real folder holds.
func officeFiles(t *testing.T) []string {
	dir := filepath.Join(t.TempDir(), "Documents", "Team handbook")
	os.MkdirAll(dir, 0o700)
	files := map[string][]byte{
		"Onboarding guide.docx": extracttest.DOCX(t, "Onboarding guide for new staff",
			"Welcome to the team. This guide covers accounts, equipment and the first week.",
			"Copyright and licensing: material you publish must respect the copyright law of your country."),
		"Quarterly budget.xlsx": extracttest.XLSX(t, "Quarterly budget 2026",
			"Summary\nItem,Q1,Q2,Q3\nSalaries,120000,121000,125000\nLicences,8000,8000,9500",
			"Travel\nTrip,Cost\nBerlin conference,2300\nLisbon workshop,1800"),
		"Strategy review.pptx": extracttest.PPTX(t, "Strategy review",
			"Where we are: three products, two markets.", "What changed: open licences and free culture.", "Next steps: hire, ship, measure."),
		"Field notes.epub": extracttest.EPUB(t, "Field notes on river birds",
			"Kingfishers dive from a perch to catch small fish.", "Herons wait motionless in the shallows."),
		"Meeting minutes.odt": extracttest.ODT(t, "Minutes of the March meeting", "Attendees agreed the budget.", "Actions: draft the licence policy."),
		"README.md":           []byte("# Team handbook\n\nHow we work: documents live in this folder and are searchable from the assistant.\n"),
	}
	var out []string
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// measureTable logs the library table's row heights and where its first
// Delete button ends in a window w px wide (docs/benchmarks/web-page.md),
// and fails on a row taller than one line.
func measureTable(t *testing.T, ctx context.Context, w int64) {
	t.Helper()
	h := evalJS[[]float64](t, ctx, `[...document.querySelectorAll("table.docs tbody tr")].map(r => r.getBoundingClientRect().height).sort((a, b) => a - b)`)
	del := evalJS[[]float64](t, ctx, `[...document.querySelectorAll("table.docs button.danger")].map(e => e.getBoundingClientRect().right)`)
	if len(h) == 0 || len(del) == 0 {
		t.Fatal("no rows or no Delete buttons in the library table")
	}
	t.Logf("at %d px: %d rows, height median %.0f px, max %.0f px; the first Delete button ends at %.0f px", w, len(h), h[len(h)/2], h[len(h)-1], del[0])
	if h[len(h)-1] > 48 {
		t.Errorf("at %d px the tallest row is %.0f px, want one line", w, h[len(h)-1])
	}
}
