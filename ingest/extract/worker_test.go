package extract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/pdf"
)

// TestFallbackWorker runs the real worker subprocess (this test binary,
// see TestMain) on a generated PDF.
func TestFallbackWorker(t *testing.T) {
	data := testPDF{
		Title: "Fallback title",
		Pages: [][]string{{"Cats sleep sixteen hours a day.", "They dream too."}, {"Second page here."}},
	}.Bytes(t)
	doc, err := pdf.Fallback(context.Background(), testOptions().withDefaults().pdfConfig(), data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Title, "Fallback title"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	want := []string{"Cats sleep sixteen hours a day.\nThey dream too.", "Second page here."}
	if got := doc.Pages; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pages = %q, want %q", got, want)
	}
}

// TestExtractFallbackFails checks that a file neither reader can open ends
// with one error naming both readers' reasons.
func TestExtractFallbackFails(t *testing.T) {
	_, err := mustExtractor(t).Extract(context.Background(), "junk.pdf", []byte("%PDF-1.4\n1 0 obj << >> endobj\n"))
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pdfium:") || !strings.Contains(msg, "fallback reader:") || strings.Contains(msg, "\n") {
		t.Errorf("message %q should name both readers on one line", msg)
	}
}
