package library_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
)

// TestViewUnitsAndAnchors checks the units, headings and passage marks of
// the view, and that search and fetch point into it where the match is.
func TestViewUnitsAndAnchors(t *testing.T) {
	f := newFixture(t, library.Options{})
	const xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	f.Add(t, "book", "Budget", xlsx, "", "Revenue\n\nQ1 | 10", "Costs\n\nQ1 | lighthouse repairs")
	f.Add(t, "epub", "Tales", "application/epub+zip", "", "Once upon a time.", "The dragon sleeps under the hill.")
	f.Add(t, "note", "note.md", "text/markdown", "", "A single unit about otters.")
	ctx := context.Background()
	v, err := f.Lib.View(ctx, "book")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range v.Units {
		got = append(got, u.Anchor, u.Heading, u.Parts[0].Anchor)
	}
	if want := []string{"sheet-1", "Sheet: Revenue", "passage-0", "sheet-2", "Sheet: Costs", "passage-1"}; !cmp.Equal(got, want) || v.Name != "book" || v.Title != "Budget" {
		t.Errorf("view %+v: units %q, want %q", v, got, want)
	}
	for _, tc := range []struct{ query, id, anchor string }{
		{"lighthouse repairs", "book:1", "sheet-2"},
		{"dragon sleeps hill", "epub:1", "chapter-2"},
		{"otters", "note:0", "passage-0"},
	} {
		resp, err := f.Lib.Search(ctx, tc.query, library.SearchOptions{K: 1})
		if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != tc.id || resp.Results[0].Anchor != tc.anchor || resp.Results[0].Page != 0 {
			t.Errorf("search %q: %+v %v, want %s at #%s", tc.query, resp, err, tc.id, tc.anchor)
		}
		fr, err := f.Lib.Fetch(ctx, tc.id, library.FetchOptions{})
		if err != nil || fr.Anchor != tc.anchor {
			t.Errorf("fetch %s: %+v %v, want #%s", tc.id, fr, err, tc.anchor)
		}
	}
	if nv, err := f.Lib.View(ctx, "note"); err != nil || len(nv.Units) != 1 || nv.Units[0].Heading != "" {
		t.Errorf("one-unit view %+v %v: want one unit without heading", nv, err)
	}
	if _, err := f.Lib.View(ctx, "nope"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("unknown document: %v, want ErrNotFound", err)
	}
}

func TestSearchDebugNamesRetrievers(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.")
	ctx := context.Background()
	want := map[library.Mode]string{library.Lexical: "lexical", library.Vector: "vector", library.Hybrid: "both"}
	for mode, name := range want {
		resp, err := f.Lib.Search(ctx, "cats attached homes", library.SearchOptions{Mode: mode, Debug: true})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%s: %+v, %v", mode, resp, err)
		}
		if got := resp.Results[0].Retriever; got != name {
			t.Errorf("%s: top result found by %q, want %q", mode, got, name)
		}
	}
	resp, _ := f.Lib.Search(ctx, "cats attached homes", library.SearchOptions{})
	if resp.Results[0].Retriever != "" {
		t.Errorf("without Debug, Retriever = %q, want empty", resp.Results[0].Retriever)
	}
}

func TestDocumentsAndDocument(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Page one text.", "Page two text.")
	ctx := context.Background()
	docs, err := f.Lib.Documents(ctx)
	if err != nil || len(docs) != 1 || docs[0].ID != "cats" {
		t.Fatalf("Documents = %+v, %v", docs, err)
	}
	d, chunks, err := f.Lib.Document(ctx, "cats")
	if err != nil || d.Text == "" || len(chunks) != 2 || chunks[1].Text != "Page two text." {
		t.Fatalf("Document = %+v, %+v, %v", d, chunks, err)
	}
	if _, _, err := f.Lib.Document(ctx, "nope"); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("unknown id: %v, want ErrNotFound", err)
	}
}

// TestOfflineEmbedderDefaultsToLexical: the offline embedder's options make
// a search that names no mode BM25 alone, and a semantic model's hybrid.
func TestOfflineEmbedderDefaultsToLexical(t *testing.T) {
	for provider, want := range map[string]string{"hash": "lexical", "openai": "both"} {
		f := newFixture(t, library.OptionsFor(embed.TraitsOf(embed.Identity{Provider: provider})))
		f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.")
		if f.Lib.Mode() != map[string]library.Mode{"hash": library.Lexical, "openai": library.Hybrid}[provider] {
			t.Errorf("%s: default mode %q", provider, f.Lib.Mode())
		}
		resp, err := f.Lib.Search(context.Background(), "cats attached homes", library.SearchOptions{Debug: true})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%s: %+v, %v", provider, resp, err)
		}
		if got := resp.Results[0].Retriever; got != want {
			t.Errorf("%s: top result found by %q, want %q", provider, got, want)
		}
	}
}
