package chunk

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sectioned builds a text of numbered sections, each a heading line and
// n sentences, and returns it with its headings: level 1 for "Part" and
// 2 for the sections inside it.
func sectioned(parts, sections, n int) (string, []Heading) {
	var b strings.Builder
	var heads []Heading
	add := func(level int, title string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		heads = append(heads, Heading{Level: level, Title: title, Offset: b.Len()})
		b.WriteString(title + "\n\n")
	}
	for p := range parts {
		add(1, "Part "+string(rune('A'+p)))
		for s := range sections {
			add(2, "Section "+string(rune('A'+p))+string(rune('1'+s)))
			for range n {
				b.WriteString("The quick brown fox jumps over the lazy dog again. ")
			}
		}
	}
	return b.String(), heads
}

func TestSplitHeadings(t *testing.T) {
	text, heads := sectioned(2, 2, 12) // sections of about 130 estimated tokens
	chunks, err := SplitHeadings(text, nil, heads, Options{Size: 200, Overlap: 20})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for i, c := range chunks {
		got = append(got, c.Headings)
		if !strings.HasPrefix(c.Text, "Part ") && !strings.HasPrefix(c.Text, "Section ") {
			t.Errorf("passage %d does not start at a heading: %.40q", i, c.Text)
		}
	}
	want := [][]string{
		{"Part A", "Section A1"}, // "Part A" alone is too small to end a passage
		{"Part A", "Section A2"},
		{"Part B", "Section B1"},
		{"Part B", "Section B2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("heading paths (-want +got):\n%s", diff)
	}
}

func TestSplitHeadingsPathAtNewText(t *testing.T) {
	// One long section after a short one: passages inside it carry its path,
	// and without headings the result is what Split gives.
	text, heads := sectioned(1, 2, 60)
	chunks, err := SplitHeadings(text, nil, heads, Options{Size: 128, Overlap: 16})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range chunks {
		want := "Section A1"
		if c.Start >= heads[2].Offset {
			want = "Section A2"
		}
		if got := c.Headings[len(c.Headings)-1]; got != want {
			t.Errorf("passage %d at %d: innermost heading %q, want %q", i, c.Start, got, want)
		}
	}
	plain, err := Split(text, nil, Options{Size: 128, Overlap: 16})
	if err != nil {
		t.Fatal(err)
	}
	same, err := SplitHeadings(text, nil, nil, Options{Size: 128, Overlap: 16})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, same); diff != "" {
		t.Errorf("SplitHeadings without headings differs from Split:\n%s", diff)
	}
}

func TestSplitHeadingsInvalid(t *testing.T) {
	for _, heads := range [][]Heading{
		{{Level: 1, Title: "a", Offset: 5}, {Level: 1, Title: "b", Offset: 2}},
		{{Level: 1, Title: "a", Offset: 99}},
		{{Level: 1, Title: "a", Offset: -1}},
	} {
		if _, err := SplitHeadings("some text here", nil, heads, DefaultOptions()); !errors.Is(err, ErrInvalidHeadings) {
			t.Errorf("%v: err = %v, want ErrInvalidHeadings", heads, err)
		}
	}
}

// TestSplitHeadingsPathOfMost: a passage holding a short section and most
// of the next is filed under the next; one holding a long section and a
// short start of the next stays under the first.
func TestSplitHeadingsPathOfMost(t *testing.T) {
	short, long := "Feeding\n\nCats eat twice a day.", "Grooming\n\n"+strings.Repeat("Brush the coat weekly and check the claws. ", 12)
	for _, text := range []string{short + "\n\n" + long, long + "\n\n" + short} {
		var heads []Heading
		for _, title := range []string{"Feeding", "Grooming"} {
			heads = append(heads, Heading{Level: 1, Title: title, Offset: strings.Index(text, title)})
		}
		if heads[0].Offset > heads[1].Offset {
			heads[0], heads[1] = heads[1], heads[0]
		}
		chunks, err := SplitHeadings(text, nil, heads, Options{Size: 200, Overlap: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 1 {
			t.Fatalf("%d passages, want 1", len(chunks))
		}
		if diff := cmp.Diff([]string{"Grooming"}, chunks[0].Headings); diff != "" {
			t.Errorf("%.20q...: path (-want +got):\n%s", text, diff)
		}
	}
}
