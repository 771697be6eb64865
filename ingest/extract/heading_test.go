package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// at is a heading as the tests state it: level, 1-based page, title, and
// the text that starts at its offset.
type at struct {
	Level int
	Page  int
	Title string
	Text  string
}

func headingsAt(doc *Document) []at {
	var out []at
	for _, h := range doc.Headings {
		text, _, _ := strings.Cut(doc.Pages[h.Page][h.Offset:], "\n")
		out = append(out, at{h.Level, h.Page + 1, h.Title, text})
	}
	return out
}

func TestHeadings(t *testing.T) {
	outlined := testPDF{Title: "Outlined", Pages: [][]string{
		{"Preface text on the first page."},
		{"Some text before the section.", "", "2.1 Tides and Currents", "", "The tide turns twice a day."},
		{"Lighthouses", "", "Keepers log fog."},
	}, Outline: []testBookmark{
		{1, "Preface", 0},
		{1, "Chapter 2", 1},
		{2, "2.1 Tides and currents", 1},
		{2, "Lighthouses", 2},
		{3, "Too deep but kept", 2},
	}}
	cases := []struct {
		name string
		data []byte
		want []at
	}{
		{"notes.md", []byte("---\ntitle: x\n---\n# Guide\n\nIntro mentions Usage.\n\n## Usage\n\nRun it.\n\nSetup\n-----\n\n```\n# not a heading\n```\n\n### Flags *and* `options`\n\nMore.\n"), []at{
			{1, 1, "Guide", "Guide"},
			{2, 1, "Usage", "Usage"},
			{2, 1, "Setup", "Setup"},
			{3, 1, "Flags and options", "Flags and options"},
		}},
		{"page.html", []byte("<html><head><title>T</title></head><body><nav><h2>Menu</h2></nav><h1>Top  <em>level</em></h1><p>x</p><h3>Deep</h3><p>y</p><h2>Mid</h2></body></html>"), []at{
			{1, 1, "Top level", "Top level"},
			{3, 1, "Deep", "Deep"},
			{2, 1, "Mid", "Mid"},
		}},
		{"outlined.pdf", outlined.Bytes(t), []at{
			{1, 1, "Preface", "Preface text on the first page."}, // not a line of its own: found in the line
			{1, 2, "Chapter 2", "Some text before the section."}, // not printed: the page start
			{2, 2, "2.1 Tides and currents", "2.1 Tides and Currents"},
			{2, 3, "Lighthouses", "Lighthouses"},
			{3, 3, "Too deep but kept", "Lighthouses"},
		}},
		{"plain.txt", []byte("# not markdown\n\ntext"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := mustExtractor(t).Extract(context.Background(), tc.name, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, headingsAt(doc)); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlaceHeadings(t *testing.T) {
	pages := []string{"Intro\n\nBody", "Words\n\nIntro again"}
	hs := []Heading{
		{Level: 1, Title: "Intro again", Page: 1},
		{Level: 1, Title: "  Intro  ", Page: 0},
		{Level: 2, Title: "", Page: 0},
		{Level: 2, Title: "Missing", Page: 0},
		{Level: 1, Title: "Out of range", Page: 2},
		{Level: core.MaxHeadingLevel + 1, Title: "Too deep", Page: 0},
		{Level: 1, Title: strings.Repeat("x", 300), Page: 1},
	}
	got := core.PlaceHeadings(pages, hs)
	want := []Heading{
		{Level: 1, Title: "Intro", Page: 0, Offset: 0},
		{Level: 2, Title: "Missing", Page: 0, Offset: 0},
		{Level: 1, Title: "Intro again", Page: 1, Offset: 7},
		{Level: 1, Title: strings.Repeat("x", core.MaxHeadingRunes), Page: 1, Offset: 7}, // not found: at the previous one
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placeHeadings (-want +got):\n%s", diff)
	}
}

// TestOutlineCycle reads a PDF whose outline loops (the last bookmark's
// /Next is the first): extraction ends, and the repeated bookmarks are
// dropped.
func TestOutlineCycle(t *testing.T) {
	data := testPDF{Pages: [][]string{{"Alpha", "Beta"}}, Outline: []testBookmark{{1, "Alpha", 0}, {1, "Beta", 0}}}.Bytes(t)
	looped := strings.Replace(string(data), "/Title (Beta) /Parent 8 0 R", "/Title (Beta) /Next 9 0 R /Parent 8 0 R", 1)
	if looped == string(data) {
		t.Fatal("outline object not found")
	}
	doc, err := mustExtractor(t).Extract(context.Background(), "loop.pdf", []byte(looped))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Headings); n != 2 {
		t.Errorf("%d headings, want 2", n)
	}
}
