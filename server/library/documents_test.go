package library_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpvec/mcpvec/server/library"
)

func TestSearchDebugNamesRetrievers(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.add(t, "cats", "cats.pdf", "application/pdf", "", "Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.")
	ctx := context.Background()
	want := map[library.Mode]string{library.Lexical: "lexical", library.Vector: "vector", library.Hybrid: "both"}
	for mode, name := range want {
		resp, err := f.lib.Search(ctx, "cats attached homes", library.SearchOptions{Mode: mode, Debug: true})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%s: %+v, %v", mode, resp, err)
		}
		if got := resp.Results[0].Retriever; got != name {
			t.Errorf("%s: top result found by %q, want %q", mode, got, name)
		}
	}
	resp, _ := f.lib.Search(ctx, "cats attached homes", library.SearchOptions{})
	if resp.Results[0].Retriever != "" {
		t.Errorf("without Debug, Retriever = %q, want empty", resp.Results[0].Retriever)
	}
}

func TestDocumentsAndDocument(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.add(t, "cats", "cats.pdf", "application/pdf", "", "Page one text.", "Page two text.")
	ctx := context.Background()
	docs, err := f.lib.Documents()
	if err != nil || len(docs) != 1 || docs[0].ID != "cats" {
		t.Fatalf("Documents = %+v, %v", docs, err)
	}
	d, chunks, err := f.lib.Document(ctx, "cats")
	if err != nil || d.Text == "" || len(chunks) != 2 || chunks[1].Text != "Page two text." {
		t.Fatalf("Document = %+v, %+v, %v", d, chunks, err)
	}
	if _, _, err := f.lib.Document(ctx, "nope"); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("unknown id: %v, want ErrNotFound", err)
	}
}

// TestOfflineEmbedderDefaultsToLexical: the offline embedder's options make
// a search that names no mode BM25 alone, and a semantic model's hybrid.
func TestOfflineEmbedderDefaultsToLexical(t *testing.T) {
	for provider, want := range map[string]string{"hash": "lexical", "openai": "both"} {
		f := newFixture(t, library.OptionsFor(provider))
		f.add(t, "cats", "cats.pdf", "application/pdf", "", "Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.")
		if f.lib.Mode() != map[string]library.Mode{"hash": library.Lexical, "openai": library.Hybrid}[provider] {
			t.Errorf("%s: default mode %q", provider, f.lib.Mode())
		}
		resp, err := f.lib.Search(context.Background(), "cats attached homes", library.SearchOptions{Debug: true})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%s: %+v, %v", provider, resp, err)
		}
		if got := resp.Results[0].Retriever; got != want {
			t.Errorf("%s: top result found by %q, want %q", provider, got, want)
		}
	}
}
