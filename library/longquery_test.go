package library_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/ingest/embed/embedtest"
	"github.com/mcpvec/mcpvec/internal/topictext"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// recordingEmbedder is the kit's Words embedder that remembers the longest
// query it was asked to embed, in estimated tokens.
type recordingEmbedder struct {
	embedtest.Words
	mu      sync.Mutex
	longest int
}

func (e *recordingEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	e.mu.Lock()
	e.longest = max(e.longest, analysis.EstimateTokens(q))
	e.mu.Unlock()
	return e.Words.EmbedQuery(ctx, q)
}

// topicLibrary is a library of 8 documents, one per topic of topictext,
// each of 6 passages of 1,500 characters ("topic0" … "topic7"), over emb.
func topicLibrary(t *testing.T, emb *recordingEmbedder, opts library.Options) *embeddedtest.Fixture {
	t.Helper()
	db := storetest.MustOpen(t, nil)
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, emb, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := &embeddedtest.Fixture{DB: db, Lib: lib}
	for topic := range 8 {
		var pages []string
		for p := range 6 {
			pages = append(pages, topictext.Text(topic, uint64(p), 1500))
		}
		id := fmt.Sprintf("topic%d", topic)
		f.Add(t, id, id+".txt", "text/plain", "", pages...)
	}
	return f
}

// TestLongQueryByExample: a pasted 20,000-character text on one topic (not
// a copy of any passage) is searched by its most informative terms and
// finds that topic's document first; every mode answers it, embedders are
// sent its head only, and snippets mark the kept terms.
func TestLongQueryByExample(t *testing.T) {
	emb := &recordingEmbedder{Words: embeddedtest.Words}
	f := topicLibrary(t, emb, library.Options{})
	query := topictext.Text(3, 99, 20000)
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		resp, err := f.Lib.Search(t.Context(), query, library.SearchOptions{K: 5, Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(resp.Results) == 0 {
			t.Fatalf("%s: no results", mode)
		}
		// The test embedder's vectors of a text's head rank no topic
		// reliably; BM25's do.
		if mode != library.Vector && resp.Results[0].DocID != "topic3" {
			t.Fatalf("%s: results %+v, want topic3 first", mode, resp.Results)
		}
		if n := len(resp.Terms); n == 0 || n > 32 {
			t.Errorf("%s: searched by %d terms, want 1-32", mode, n)
		}
		for _, r := range resp.Results {
			if n := utf8.RuneCountInString(r.Text); n > 600 {
				t.Errorf("%s: snippet of %d characters", mode, n)
			}
		}
		marked := false
		for _, s := range library.HighlightTerms(resp.Results[0].Text, resp.Terms) {
			marked = marked || s.Mark
		}
		if !marked {
			t.Errorf("%s: no kept term marked in the top snippet", mode)
		}
	}
	if got, want := emb.longest, 512; got > want || got < want/2 {
		t.Errorf("longest query embedded: %d tokens, want about %d", got, want)
	}
}

// TestLongQueryCap: the hard cap stays, with the error saying both
// lengths; a query at the cap is searched.
func TestLongQueryCap(t *testing.T) {
	f := topicLibrary(t, &recordingEmbedder{Words: embeddedtest.Words}, library.Options{})
	at := topictext.Text(5, 1, library.DefaultMaxQueryLen)
	if _, err := f.Lib.Search(t.Context(), at, library.SearchOptions{Mode: library.Hybrid}); err != nil {
		t.Fatalf("a query of %d characters: %v", library.DefaultMaxQueryLen, err)
	}
	_, err := f.Lib.Search(t.Context(), at+"x", library.SearchOptions{})
	var long *library.QueryTooLongError
	if !errors.As(err, &long) || !errors.Is(err, library.ErrQueryTooLong) {
		t.Fatalf("a query over the cap: %v, want a QueryTooLongError", err)
	}
	if got, want := err.Error(), "query too long: 32001 characters, the limit is 32000"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

// TestLongQueryKeepsInformativeTerms: a long query keeps rare terms over a
// word nearly every passage holds, however often the query repeats it,
// and drops words no passage holds; a query of at most 32 distinct terms
// is searched by all of them.
func TestLongQueryKeepsInformativeTerms(t *testing.T) {
	f := embeddedtest.New(t, library.Options{})
	var rare []string
	for i := range 120 {
		w := fmt.Sprintf("rare%cword%c", 'a'+i%26, 'a'+i/26)
		rare = append(rare, w)
		f.Add(t, fmt.Sprintf("d%d", i), "d.txt", "text/plain", "", "ubiquitous "+w)
	}
	query := strings.Repeat("ubiquitous ", 200) + strings.Join(rare[:40], " ") + " absentxyz"
	resp, err := f.Lib.Search(t.Context(), query, library.SearchOptions{Mode: library.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Terms) != 32 || slices.Contains(resp.Terms, "ubiquit") || slices.Contains(resp.Terms, "absentxyz") {
		t.Errorf("terms = %v, want 32 rare words", resp.Terms)
	}
	short := strings.Join(rare[:32], " ")
	if resp, err = f.Lib.Search(t.Context(), short, library.SearchOptions{Mode: library.Lexical}); err != nil || resp.Terms != nil {
		t.Errorf("a query of 32 terms: terms %v, %v; want all its own (nil)", resp.Terms, err)
	}
}
