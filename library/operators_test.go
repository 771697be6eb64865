package library_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// operatorLibrary holds four documents of different folders, types and
// dates that all speak of the garden plan.
func operatorLibrary(t *testing.T, opts library.Options) *fixture {
	f := newFixture(t, opts)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, d := range []struct {
		doc   store.Document
		pages []string
	}{
		{store.Document{ID: "report", Title: "Annual Report 2023", SourcePath: "/lib/work/report-2023.pdf", MediaType: "application/pdf", ModTime: day("2023-06-01")},
			[]string{"The garden plan budget grew this year.", "Revenue from the garden plan shop."}},
		{store.Document{ID: "notes", Title: "notes.md", SourcePath: "/lib/work/notes.md", MediaType: "text/markdown", ModTime: day("2024-03-10")},
			[]string{"Meeting notes: the garden plan needs water pumps.", "Tomatoes planted along the south wall."}},
		{store.Document{ID: "recipes", Title: "Recipes", SourcePath: "/lib/home/recipes.docx", MediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ModTime: day("2024-05-01")},
			[]string{"Tomato soup from the garden plan harvest.", "Bread needs flour, water and time."}},
		{store.Document{ID: "garden", Title: "Garden Plan", SourcePath: "/lib/home/Garden Plan.txt", MediaType: "text/plain", ModTime: day("2022-01-01")},
			[]string{"Plan the garden: beds, paths and a pond.", "Water the plan beds at dawn."}},
	} {
		doc := d.doc
		f.PutDocument(t, &doc, nil, d.pages)
	}
	return f
}

// docsOf returns the document ids of results, in order, and fails t on
// an error.
func docsOf(t *testing.T, resp *library.SearchResponse, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range resp.Results {
		id, _, _ := strings.Cut(r.ID, ":")
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestSearchOperators: every operator keeps exactly the documents and
// passages it names, in every mode, and an operator matching nothing says
// so in the response's notes.
func TestSearchOperators(t *testing.T) {
	f := operatorLibrary(t, library.Options{})
	ctx := context.Background()
	cases := []struct {
		query string
		want  []string
	}{
		{"garden plan", []string{"garden", "notes", "recipes", "report"}},
		{"garden plan in:report", []string{"report"}},
		{`garden plan in:"garden plan*"`, []string{"garden"}},
		{"garden plan in:*.md", []string{"notes"}},
		{"garden plan -in:report -in:recipes", []string{"garden", "notes"}},
		{"garden plan path:work/", []string{"notes", "report"}},
		{"garden plan path:/lib/home", []string{"garden", "recipes"}},
		{"garden plan -path:home/", []string{"notes", "report"}},
		{"garden plan path:/lib/*/", []string{"garden", "notes", "recipes", "report"}},
		{"garden plan type:pdf", []string{"report"}},
		{"garden plan type:docx|md", []string{"notes", "recipes"}},
		{"garden plan type:txt,pdf", []string{"garden", "report"}},
		{"garden plan -type:pdf", []string{"garden", "notes", "recipes"}},
		{"garden plan after:2024", []string{"notes", "recipes"}},
		{"garden plan after:2024-04", []string{"recipes"}},
		{"garden plan before:2024-03-10", []string{"garden", "report"}},
		{"garden plan after:2023 before:2024-05", []string{"notes", "report"}},
		{`"garden plan"`, []string{"notes", "recipes", "report"}},
		{"in:notes", []string{"notes"}},
		{"type:pdf after:2023", []string{"report"}},
	}
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		for _, c := range cases {
			resp, err := f.Lib.Search(ctx, c.query, library.SearchOptions{K: 10, Mode: mode})
			if got := docsOf(t, resp, err); !slices.Equal(got, c.want) {
				t.Errorf("%s %q: documents %v, want %v", mode, c.query, got, c.want)
			}
			if len(resp.Notes) != 0 {
				t.Errorf("%s %q: notes %q", mode, c.query, resp.Notes)
			}
		}
	}
	// Exclusions test each passage: none returned holds the word or phrase.
	for _, c := range []struct{ query, not string }{
		{"garden plan -water", "water"}, {`garden plan -"garden plan"`, "garden plan"}, {`-"garden plan" -water`, "water"},
	} {
		for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
			resp, err := f.Lib.Search(ctx, c.query, library.SearchOptions{K: 10, Mode: mode})
			if err != nil || len(resp.Results) == 0 {
				t.Fatalf("%s %q: %d results, %v", mode, c.query, len(resp.Results), err)
			}
			for _, r := range resp.Results {
				if strings.Contains(strings.ToLower(r.Text), c.not) || strings.Contains(r.Text, "garden plan") && strings.Contains(c.query, `-"garden plan"`) {
					t.Errorf("%s %q: result %s holds %q: %q", mode, c.query, r.ID, c.not, r.Text)
				}
			}
		}
	}
}

// TestSearchOperatorNotes: operators that match nothing say which, and
// the results are empty (not an error).
func TestSearchOperatorNotes(t *testing.T) {
	f := operatorLibrary(t, library.Options{})
	ctx := context.Background()
	for _, c := range []struct{ query, note string }{
		{"garden in:nosuchdoc", "in:nosuchdoc matches no document in the library"},
		{"garden type:pptx", "type:pptx matches no document in the library"},
		{"garden after:2030", "after:2030-01-01 matches no document in the library"},
		{"garden type:pdf path:home/", "the operators type:pdf path:home/ together match no document"},
		{"garden -path:/lib/", "-path:/lib/ excludes every document in the library"},
		{`"pond garden beds"`, `no passage matched "pond garden beds"`},
		{`garden -garden`, `no passage matched -garden`},
	} {
		resp, err := f.Lib.Search(ctx, c.query, library.SearchOptions{K: 5, Mode: library.Lexical})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) != 0 || resp.Results == nil || !slices.Contains(resp.Notes, c.note) {
			t.Errorf("%q: %d results, notes %q; want none and the note %q", c.query, len(resp.Results), resp.Notes, c.note)
		}
	}
}

// TestSearchPlainTextStaysPlain: unknown name:value terms, URLs, a lone
// '-' and operators without a value are searched as written.
func TestSearchPlainTextStaysPlain(t *testing.T) {
	f := newFixture(t, library.Options{Mode: library.Lexical})
	f.Add(t, "web", "links.md", "text/markdown", "", "See http://example.org/page for the note: in: and type: fields.")
	f.Add(t, "other", "other.md", "text/markdown", "", "Nothing about it.")
	for _, q := range []string{"http://example.org/page", "note: - fields", "in: type:"} {
		resp, err := f.Lib.Search(context.Background(), q, library.SearchOptions{K: 5})
		if got := docsOf(t, resp, err); !slices.Equal(got, []string{"web"}) || len(resp.Notes) != 0 {
			t.Errorf("%q: documents %v notes %q, want [web] and no notes", q, got, resp.Notes)
		}
	}
}

// TestSearchFilterInsideRetrieval: one allowed passage that ranks below
// hundreds of others is still found with k 3 and few candidates: the
// filter applies while ranking, not to a short list after it.
func TestSearchFilterInsideRetrieval(t *testing.T) {
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, library.Options{Mode: mode, Candidates: 5})
			for i := range 300 {
				f.Add(t, fmt.Sprintf("loud%03d", i), fmt.Sprintf("loud%03d.md", i), "text/markdown", "",
					fmt.Sprintf("Lighthouse lamp oil and lighthouse wicks, lighthouse keeper %d.", i))
			}
			f.Add(t, "quiet", "quiet.pdf", "application/pdf", "", "A harbour with one lighthouse, far away.")
			resp, err := f.Lib.Search(context.Background(), "lighthouse lamp type:pdf", library.SearchOptions{K: 3})
			if got := docsOf(t, resp, err); !slices.Equal(got, []string{"quiet"}) {
				t.Fatalf("documents %v, want [quiet]", got)
			}
		})
	}
}

// TestSearchOperatorsSeeWrites: the document list kept between searches
// with operators follows writes: a document added or removed after one is
// found or missed by the next.
func TestSearchOperatorsSeeWrites(t *testing.T) {
	f := operatorLibrary(t, library.Options{Mode: library.Lexical})
	ctx := context.Background()
	search := func() []string {
		resp, err := f.Lib.Search(ctx, "garden in:late", library.SearchOptions{K: 5})
		return docsOf(t, resp, err)
	}
	if got := search(); len(got) != 0 {
		t.Fatalf("before the write: %v", got)
	}
	f.Add(t, "late", "late.md", "text/markdown", "", "A late garden note.")
	if got, want := search(), []string{"late"}; !slices.Equal(got, want) {
		t.Fatalf("after the write: %v, want %v", got, want)
	}
	if _, err := f.Lib.Remove(ctx, "late"); err != nil {
		t.Fatal(err)
	}
	if got := search(); len(got) != 0 {
		t.Fatalf("after the removal: %v", got)
	}
}
