package extract

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractDOCXNotes: footnotes, endnotes and comments are indexed after
// the paragraph citing them, on its page; headers and footers once, after
// the body; Word's separator notes not at all.
func TestExtractDOCXNotes(t *testing.T) {
	doc := mustExtract(t, "notes.docx", extracttest.NotesDOCX(t))
	if got, want := len(doc.Pages), 2; got != want {
		t.Fatalf("%d pages, want %d: %q", got, want, doc.Pages)
	}
	wantOrder := []struct {
		page int
		text string
	}{
		{0, "Cats use whiskers to measure gaps. They also sense air currents."},
		{0, "Footnote: Measured with a ruler by the vet."},
		{0, "Endnote: See the 2019 whisker survey."},
		{0, "Kittens are born with whiskers."},
		{0, "Comment: Check this claim with Tom."},
		{1, "Second page about tails."},
		{1, "Header: Feline Facts Quarterly"},
		{1, "Footer: Confidential draft"},
	}
	at := map[int]int{}
	for _, w := range wantOrder {
		i := strings.Index(doc.Pages[w.page][at[w.page]:], w.text)
		if i < 0 {
			t.Errorf("page %d lacks %q after offset %d:\n%s", w.page+1, w.text, at[w.page], doc.Pages[w.page])
			continue
		}
		at[w.page] += i + len(w.text)
	}
	all := strings.Join(doc.Pages, "\n")
	if got := strings.Count(all, "Feline Facts Quarterly"); got != 1 {
		t.Errorf("header text appears %d times, want once", got)
	}
	if strings.Contains(all, "cont") {
		t.Errorf("separator note text indexed:\n%s", all)
	}
}
