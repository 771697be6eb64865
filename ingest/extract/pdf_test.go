package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestExtractPDFPages(t *testing.T) {
	data := testPDF{
		Title: "Cats and their homes",
		Pages: [][]string{
			{"Cats are territorial animals.", "They are attached to their homes."},
			{"The second page talks about fish and", "exam-", "ple words."},
			{"Ünïcödé façade — 20 €"},
		},
	}.Bytes(t)
	doc := mustExtract(t, "cats.pdf", data)
	if got, want := doc.Title, "Cats and their homes"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got, want := doc.MediaType, TypePDF; got != want {
		t.Errorf("media type = %q, want %q", got, want)
	}
	if got, want := len(doc.Pages), 3; got != want {
		t.Fatalf("pages = %d, want %d: %q", got, want, doc.Pages)
	}
	for i, want := range []string{
		"Cats are territorial animals.\nThey are attached to their homes.",
		"The second page talks about fish and\nexample words.",
		"Ünïcödé façade — 20 €",
	} {
		if got := doc.Pages[i]; got != want {
			t.Errorf("page %d = %q, want %q", i+1, got, want)
		}
	}
}

func TestExtractPDFEncrypted(t *testing.T) {
	data := testPDF{Title: "Secret", Pages: [][]string{{"The cat sleeps on the secret sofa."}}, Password: "meow"}.Bytes(t)
	ext := mustExtractor(t)
	if _, err := ext.Extract(context.Background(), "secret.pdf", data); !errors.Is(err, ErrEncrypted) {
		t.Fatalf("no password: err = %v, want ErrEncrypted", err)
	}
	if got, want := ErrEncrypted.Error(), "password required"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	opts := testOptions()
	opts.Password = "meow"
	withPW := newExtractor(t, opts)
	doc, err := withPW.Extract(context.Background(), "secret.pdf", data)
	if err != nil {
		t.Fatalf("with password: %v", err)
	}
	if got, want := strings.Join(doc.Pages, "|"), "The cat sleeps on the secret sofa."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got, want := doc.Title, "Secret"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	opts.Password = "woof"
	wrong := newExtractor(t, opts)
	if _, err := wrong.Extract(context.Background(), "secret.pdf", data); !errors.Is(err, ErrEncrypted) {
		t.Fatalf("wrong password: err = %v, want ErrEncrypted", err)
	}
}

// TestExtractPDFPasswordKeepsOpenFiles: a --password meant for one file
// must not lock out encrypted files that open with the empty user password
// (only an owner password), neither a generated one nor real ones from
// the shared corpus when it is present.
func TestExtractPDFPasswordKeepsOpenFiles(t *testing.T) {
	opts := testOptions()
	opts.Password = "meow"
	ext := newExtractor(t, opts)
	data := testPDF{Title: "Open", Pages: [][]string{{"Anyone may read this page."}}, Owner: "boss"}.Bytes(t)
	doc, err := ext.Extract(context.Background(), "open.pdf", data)
	if err != nil {
		t.Errorf("owner-only PDF with --password: %v", err)
	} else if got, want := strings.Join(doc.Pages, "|"), "Anyone may read this page."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	for _, name := range []string{"pdfjs__bug1815476.pdf", "pdfjs__bug900822.pdf", "pdfjs__empty_protected.pdf", "pdfjs__issue17069.pdf", "pdfjs__issue7665.pdf", "pdfjs__issue9972-1.pdf", "pdfjs__secHandler.pdf"} {
		data, err := os.ReadFile(filepath.Join(corpusDir(), name))
		if err != nil {
			t.Logf("corpus file %s not available: %v", name, err)
			continue
		}
		if _, err := ext.Extract(context.Background(), name, data); errors.Is(err, ErrEncrypted) {
			t.Errorf("%s with --password: %v", name, err)
		}
	}
}

// manyPages returns a generated PDF of n pages of a few lines each.
func manyPages(tb testing.TB, n int) []byte {
	pages := make([][]string, n)
	for i := range pages {
		pages[i] = []string{fmt.Sprintf("Page %d: cats come home.", i+1), "Dogs do too, mostly.", "The end of the page."}
	}
	return testPDF{Title: "Many", Pages: pages}.Bytes(tb)
}

func TestExtractPDFTimeouts(t *testing.T) {
	data := manyPages(t, 120)
	for _, tc := range []struct {
		name      string
		page, doc time.Duration
	}{
		{"page", time.Nanosecond, time.Minute},
		{"document", time.Minute, 5 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions()
			opts.PageTimeout, opts.DocTimeout = tc.page, tc.doc
			ext := newExtractor(t, opts)
			ext.Extract(context.Background(), "warm.pdf", manyPages(t, 1)) // start pdfium outside the deadline
			if _, err := ext.Extract(context.Background(), "many.pdf", data); !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			opts.PageTimeout, opts.DocTimeout = 0, 0
			ext.opts = opts.withDefaults()
			doc, err := ext.Extract(context.Background(), "many.pdf", data)
			if err != nil {
				t.Fatalf("after a timeout the extractor must recover: %v", err)
			}
			if got, want := doc.Pages[119], "Page 120: cats come home.\nDogs do too, mostly.\nThe end of the page."; got != want {
				t.Errorf("last page = %q, want %q", got, want)
			}
		})
	}
}

func TestExtractPDFCancel(t *testing.T) {
	ext := mustExtractor(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ext.Extract(ctx, "many.pdf", manyPages(t, 50)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestExtractConcurrent runs more extractions at once than there are
// pdfium instances; run it with -race.
func TestExtractConcurrent(t *testing.T) {
	opts := testOptions()
	opts.MaxInstances = 2
	ext := newExtractor(t, opts)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			data := manyPages(t, g+1)
			doc, err := ext.Extract(context.Background(), "c.pdf", data)
			switch {
			case err != nil:
				errs <- err
			case len(doc.Pages) != g+1 || !strings.HasPrefix(doc.Pages[g], fmt.Sprintf("Page %d:", g+1)):
				errs <- fmt.Errorf("goroutine %d got pages %q", g, doc.Pages)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestExtractPDFParagraphs(t *testing.T) {
	data := testPDF{Pages: [][]string{{
		"First paragraph, line one,", "and line two.", "",
		"Second paragraph, a sin-", "gle hyphenated word.", "", "",
		"Third paragraph.", "Still the third.",
	}}}.Bytes(t)
	doc := mustExtract(t, "p.pdf", data)
	want := "First paragraph, line one,\nand line two.\n\nSecond paragraph, a single hyphenated word.\n\nThird paragraph.\nStill the third."
	if got := doc.Pages[0]; got != want {
		t.Errorf("page = %q, want %q", got, want)
	}
}
