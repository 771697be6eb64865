package library_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
)

// wordEmbedder is the kit's deterministic test embedder.
var wordEmbedder = embeddedtest.Words

// fixture is a Library over the embedded backend of a new library file.
type fixture struct{ *embeddedtest.Fixture }

func newFixture(t *testing.T, opts library.Options) *fixture {
	return &fixture{embeddedtest.New(t, opts)}
}

func TestSearchModesAndResultShape(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "https://example.org/cats.pdf",
		"Dogs are loyal companions.", "Cats are strongly attached to their homes and territory.", "Birds migrate in autumn.")
	f.Add(t, "mem", "valgrind.md", "text/markdown", "", "Run memcheck with --leak-check=full to list leaks.")
	ctx := context.Background()
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		resp, err := f.Lib.Search(ctx, "are cats attached to their homes", library.SearchOptions{K: 2, Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(resp.Results) == 0 {
			t.Fatalf("%s: no results", mode)
		}
		r := resp.Results[0]
		if r.ID != "cats:1" || r.Title != "cats.pdf — p. 2" || r.URL != "https://example.org/cats.pdf#page=2" || r.DocID != "cats" || r.Page != 2 {
			t.Fatalf("%s: top result = %+v", mode, r)
		}
	}
	resp, err := f.Lib.Search(ctx, "--leak-check=full", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != "mem:0" || resp.Results[0].URL != "" {
		t.Fatalf("identifier search = %+v, %v", resp, err)
	}
	resp, err = f.Lib.Search(ctx, "zebra quagga okapi", library.SearchOptions{Mode: library.Lexical})
	if err != nil || resp.Results == nil || len(resp.Results) != 0 {
		t.Fatalf("no-match search must give an empty, non-nil list: %+v, %v", resp, err)
	}
}

func TestSearchErrors(t *testing.T) {
	f := newFixture(t, library.Options{MaxQueryLen: 10})
	ctx := context.Background()
	if _, err := f.Lib.Search(ctx, "   ", library.SearchOptions{}); !errors.Is(err, library.ErrEmptyQuery) {
		t.Fatalf("empty: %v", err)
	}
	_, err := f.Lib.Search(ctx, "eleven characters", library.SearchOptions{})
	var long *library.QueryTooLongError
	if !errors.Is(err, library.ErrQueryTooLong) || !errors.As(err, &long) || long.Len != 17 || long.Max != 10 {
		t.Fatalf("long: %v", err)
	}
	if _, err := f.Lib.Search(ctx, "eleven characters", library.SearchOptions{MaxQueryLen: 17}); errors.Is(err, library.ErrQueryTooLong) {
		t.Fatalf("a per-call limit of 17 refused 17 characters: %v", err)
	}
	if _, err := f.Lib.Fetch(ctx, "nope:3", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("fetch unknown: %v", err)
	}
	if _, err := f.Lib.Fetch(ctx, "nope", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("fetch unknown doc: %v", err)
	}
}

func TestFetchPassageAndDocument(t *testing.T) {
	f := newFixture(t, library.Options{MaxFetchChars: 40})
	f.Add(t, "cats", "cats.pdf", "application/pdf", "", "Page one text.", "Cats are attached to homes.", "Page three has a much longer text that will be cut by the cap.")
	ctx := context.Background()
	r, err := f.Lib.Fetch(ctx, "cats:1", library.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "Cats are attached to homes." || r.Metadata["page_start"] != 2 || r.Metadata["chunk_index"] != 1 ||
		r.Metadata["document_id"] != "cats" || r.Metadata["truncated"] != false || r.Page != 2 {
		t.Fatalf("passage fetch = %+v", r)
	}
	d, err := f.Lib.Fetch(ctx, "cats", library.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(d.Text)); n > 40 || n < 30 || !strings.HasSuffix(d.Text, "…") || d.Metadata["truncated"] != true || d.Metadata["source"] != "/docs/cats" {
		t.Fatalf("document fetch = %+v", d)
	}
	if d, err := f.Lib.Fetch(ctx, "cats", library.FetchOptions{MaxChars: 20}); err != nil || len([]rune(d.Text)) > 20 {
		t.Fatalf("fetch with a per-call cap of 20 = %q, %v", d.Text, err)
	}
	o, err := f.Lib.Original(ctx, "cats")
	if err != nil || o.MediaType != "application/pdf" || o.Name != "cats" || o.Size != 22 {
		t.Fatalf("original = %+v, %v", o, err)
	}
	if b, err := io.ReadAll(o.Content); err != nil || string(b) != "original bytes of cats" {
		t.Fatalf("original content = %q, %v", b, err)
	}
}

func TestOverlappingPassagesAreDeduplicated(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.putOverlapping(t, "lh")
	resp, err := f.Lib.Search(context.Background(), "lighthouse wicks lamps", library.SearchOptions{K: 3, Mode: library.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range resp.Results {
		ids[r.ID] = true
	}
	if ids["lh:0"] && ids["lh:1"] {
		t.Fatalf("overlapping passages both returned: %+v", resp.Results)
	}
}

// putOverlapping stores document id of three passages, the first two
// overlapping by most of their length.
func (f *fixture) putOverlapping(t *testing.T, id string) {
	t.Helper()
	text := "Lighthouse keepers trimmed the wicks. Lighthouse lamps burned whale oil. Keepers lived on the rock."
	d := &store.Document{ID: id, Title: id + ".txt", SourcePath: "/" + id, MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
	chunks := []store.Chunk{
		{Text: text[0:70], Start: 0, End: 70, PageStart: 1, PageEnd: 1},
		{Text: text[5:72], Start: 5, End: 72, PageStart: 1, PageEnd: 1},
		{Text: text[72:], Start: 72, End: len(text), PageStart: 1, PageEnd: 1},
	}
	var vecs [][]float32
	for _, c := range chunks {
		vecs = append(vecs, wordEmbedder.Vector(c.Text))
	}
	res, err := f.DB.PutDocument(d, chunks, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Lib.Apply(context.Background(), res); err != nil {
		t.Fatal(err)
	}
}

func TestSnippetCentresOnMatchingSentence(t *testing.T) {
	f := newFixture(t, library.Options{SnippetChars: 80})
	long := strings.Repeat("Filler sentence about nothing in particular. ", 10) +
		"The password reset token expires after fifteen minutes. " + strings.Repeat("More filler text follows here. ", 10)
	f.Add(t, "s", "s.txt", "text/plain", "", long)
	resp, err := f.Lib.Search(context.Background(), "reset token expires", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 {
		t.Fatal(resp, err)
	}
	sn := resp.Results[0].Text
	if !strings.Contains(sn, "password reset token expires") || len([]rune(sn)) > 82 {
		t.Fatalf("snippet = %q", sn)
	}
}

func TestResultCitesThePageOfTheMatchingSentence(t *testing.T) {
	f := newFixture(t, library.Options{})
	p1 := "Harbour seals rest on sandbanks at low tide. They haul out in groups."
	p2 := "Lighthouse keepers logged every passing ship in a ledger."
	text := p1 + "\n\n" + p2
	d := &store.Document{ID: "sea", Title: "sea.pdf", SourcePath: "/sea.pdf", SourceURL: "https://example.org/sea.pdf",
		MediaType: "application/pdf", Pages: 2, PageStarts: []int{0, len(p1) + 2}, Text: text}
	chunks := []store.Chunk{{Text: text, Start: 0, End: len(text), PageStart: 1, PageEnd: 2}}
	res, err := f.DB.PutDocument(d, chunks, [][]float32{wordEmbedder.Vector(text)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Lib.Apply(context.Background(), res)
	resp, err := f.Lib.Search(context.Background(), "lighthouse ledger ships", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 {
		t.Fatal(resp, err)
	}
	if r := resp.Results[0]; r.Page != 2 || r.URL != "https://example.org/sea.pdf#page=2" || r.Title != "sea.pdf — p. 2" {
		t.Fatalf("result = %+v, want page 2", r)
	}
	resp, _ = f.Lib.Search(context.Background(), "harbour seals sandbanks", library.SearchOptions{Mode: library.Lexical})
	if r := resp.Results[0]; r.Page != 1 {
		t.Fatalf("result = %+v, want page 1", r)
	}
}

// TestSnippetsAreCut: the library is the one place search text is cut; a
// passage of 40,000 characters comes back as a snippet of SnippetChars.
func TestSnippetsAreCut(t *testing.T) {
	f := newFixture(t, library.Options{})
	f.Add(t, "big", "big.txt", "text/plain", "", strings.Repeat("impeller blade wear ", 2000))
	resp, err := f.Lib.Search(context.Background(), "impeller", library.SearchOptions{Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("search = %+v, %v", resp, err)
	}
	if n := len([]rune(resp.Results[0].Text)); n > 480 || n < 400 {
		t.Errorf("snippet has %d characters, want at most the default 480", n)
	}
}

func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		in      string
		max     int
		want    string
		wantCut bool
	}{
		{"short", 10, "short", false},
		{"exactly ten", 11, "exactly ten", false},
		{"héllo wörld and more", 12, "héllo wörld…", true},
		{"abcdefghijklmnop", 5, "abcd…", true},
	} {
		got, cut := library.CutText(tc.in, tc.max)
		if got != tc.want || cut != tc.wantCut {
			t.Errorf("CutText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, cut, tc.want, tc.wantCut)
		}
		if len([]rune(got)) > tc.max {
			t.Errorf("CutText(%q, %d) = %q exceeds the cap", tc.in, tc.max, got)
		}
	}
}
