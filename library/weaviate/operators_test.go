package weaviate_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/store"
)

// TestOperatorsWeaviate: the query operators narrow a Weaviate library's
// searches as they narrow the embedded one's, the filter going to Weaviate
// as a where filter on the passages' document ids; one allowed document
// among many louder ones is still found.
func TestOperatorsWeaviate(t *testing.T) {
	ctx := context.Background()
	st := openCollection(t, "Operators")
	opts := library.OptionsFor(embed.TraitsOf(embed.Identity(identity)))
	opts.Candidates = 5
	be := weaviate.New(st, &weaviate.Options{Fusion: opts.Fusion, VectorWeight: opts.VectorWeight})
	put := func(id, path, mediaType, text string) {
		d := &store.Document{ID: id, Title: id, SourcePath: path, MediaType: mediaType, Text: text, Size: int64(len(text))}
		chunks := []store.Chunk{{Text: text, End: len(text)}}
		if _, err := be.Put(ctx, d, chunks, embedTexts(t, []string{text}), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		put(fmt.Sprintf("loud%02d", i), fmt.Sprintf("/lib/work/loud%02d.md", i), "text/markdown",
			"Lighthouse lamp oil and lighthouse wicks for the lighthouse keeper.")
	}
	put("quiet", "/lib/home/quiet.pdf", "application/pdf", "A harbour with one lighthouse, far away.")
	put("other", "/lib/home/other.txt", "text/plain", "The lighthouse keeper's cat sleeps by the lamp.")
	lib := library.New(be, hasher, opts)
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		for _, tc := range []struct {
			query string
			docs  []string
			note  string
		}{
			{"lighthouse lamp type:pdf", []string{"quiet"}, ""},
			{"lighthouse lamp path:home/", []string{"other", "quiet"}, ""},
			{"lighthouse lamp in:quiet -type:md", []string{"quiet"}, ""},
			{"lighthouse lamp -path:work/ -in:quiet", []string{"other"}, ""},
			{"lighthouse type:docx", nil, "type:docx matches no document in the library"},
		} {
			resp, err := lib.Search(ctx, tc.query, library.SearchOptions{K: 3, Mode: mode})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, tc.query, err)
			}
			var docs []string
			for _, r := range resp.Results {
				if id, _, _ := strings.Cut(r.ID, ":"); !slices.Contains(docs, id) {
					docs = append(docs, id)
				}
			}
			slices.Sort(docs)
			if !slices.Equal(docs, tc.docs) || strings.Join(resp.Notes, "; ") != tc.note {
				t.Errorf("%s %q: documents %v notes %q, want %v and %q", mode, tc.query, docs, resp.Notes, tc.docs, tc.note)
			}
		}
	}
}
