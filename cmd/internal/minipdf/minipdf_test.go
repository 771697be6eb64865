package minipdf

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract"
)

// TestWriteReadsBack extracts what Write wrote with the extractor mcpvec
// ingests with: the pages' text, the title, the bookmarks, and the padding.
func TestWriteReadsBack(t *testing.T) {
	ex, err := extract.New(context.Background(), extract.Options{OCR: extract.OCRNever})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	pages := []Page{{"Harbour cranes (north)", "lift containers"}, {"Quokka census", Wrap("a long line about quokkas counted on the island", 20)[0]}}
	marks := []Mark{{Title: "Cranes", Page: 0, Line: 0}, {Title: "Quokkas", Page: 1, Line: 0}}
	data := Write(pages, Options{Title: "Field notes", Marks: marks, Size: 64 << 10})
	if len(data) < 60<<10 || len(data) > 64<<10 {
		t.Errorf("padded to %d bytes, want about 64 KiB", len(data))
	}
	doc, err := ex.Extract(context.Background(), "notes.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Field notes" || len(doc.Pages) != 2 {
		t.Fatalf("title %q, %d pages; want Field notes, 2", doc.Title, len(doc.Pages))
	}
	if !strings.Contains(doc.Pages[0], "Harbour cranes (north)") || !strings.Contains(doc.Pages[1], "a long line about") {
		t.Errorf("pages %q", doc.Pages)
	}
	if len(doc.Headings) != 2 || doc.Headings[1].Title != "Quokkas" {
		t.Errorf("headings %+v, want the two bookmarks", doc.Headings)
	}
}

func TestStringAndWrap(t *testing.T) {
	if got, want := String(`a(b)\c é €`), `a\(b\)\\c \351 ?`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := Wrap("one two three four", 9); strings.Join(got, "|") != "one two|three|four" {
		t.Errorf("Wrap = %q", got)
	}
}
