package server

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/library"
)

// fakeDoc is one document of fakeLib: its original file and its passages.
type fakeDoc struct {
	id, name, mediaType, source string
	data                        []byte
	pages                       []string // one passage per page
}

// fakeLib is an in-memory Library with word-overlap search. It is safe for
// concurrent use and counts calls so tests can see what reached it.
type fakeLib struct {
	mu       sync.Mutex
	docs     []fakeDoc
	searches int
	failWith error // when set, Search and Fetch return it
}

func newFakeLib() *fakeLib {
	return &fakeLib{docs: []fakeDoc{
		{id: "d1", name: "manual.pdf", mediaType: "application/pdf",
			data: []byte("%PDF-1.4\n% fake manual\n"),
			pages: []string{
				"The pump must be primed with water before the first start.",
				"To replace the impeller, remove the six bolts of the pump housing.",
			}},
		{id: "d2", name: "notes.md", mediaType: "text/markdown", source: "https://example.com/notes.md",
			data:  []byte("# Notes\nThe impeller is made of bronze.\n"),
			pages: []string{"The impeller is made of bronze."}},
	}}
}

func passageID(docID string, i int) string { return fmt.Sprintf("%s:%d", docID, i) }

func (f *fakeLib) Search(ctx context.Context, query string, so library.SearchOptions) (*library.SearchResponse, error) {
	if err := checkQuery(query, so); err != nil {
		return nil, err
	}
	k := so.K
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches++
	if f.failWith != nil {
		return nil, f.failWith
	}
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return nil, library.ErrEmptyQuery
	}
	var all []library.SearchResult
	for _, d := range f.docs {
		for i, p := range d.pages {
			r := library.SearchResult{ID: passageID(d.id, i), Title: fmt.Sprintf("%s — p. %d", d.name, i+1),
				Text: p, DocID: d.id, Page: i + 1}
			if d.source != "" {
				r.URL = d.source
				r.Page = 0
			}
			all = append(all, r)
		}
	}
	top, _ := topByWords(all, words, k, func(r library.SearchResult, w string) bool {
		return strings.Contains(strings.ToLower(r.Text), w)
	})
	return &library.SearchResponse{Results: append([]library.SearchResult{}, top...)}, nil
}

// topByWords returns up to k of items with their scores, best first: an
// item's score is how many of words it matches; items matching none are
// left out and ties keep their order.
func topByWords[T any](items []T, words []string, k int, matches func(item T, word string) bool) ([]T, []int) {
	type hit struct {
		item  T
		score int
	}
	var hits []hit
	for _, it := range items {
		score := 0
		for _, w := range words {
			if matches(it, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{it, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	var top []T
	var scores []int
	for _, h := range hits[:max(0, min(k, len(hits)))] {
		top, scores = append(top, h.item), append(scores, h.score)
	}
	return top, scores
}

func (f *fakeLib) Fetch(ctx context.Context, id string, fo library.FetchOptions) (*library.FetchResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failWith != nil {
		return nil, f.failWith
	}
	for _, d := range f.docs {
		for i, p := range d.pages {
			if passageID(d.id, i) != id {
				continue
			}
			text, cut := p, false
			if fo.MaxChars > 0 {
				text, cut = library.CutText(p, fo.MaxChars)
			}
			r := &library.FetchResponse{ID: id, Title: fmt.Sprintf("%s — p. %d", d.name, i+1), Text: text,
				URL: d.source, DocID: d.id, Page: i + 1,
				Metadata: map[string]any{"document_id": d.id, "source": d.name, "chunk_index": i}}
			if cut {
				r.Metadata["truncated"] = true
			}
			if d.source != "" {
				r.Page = 0
			}
			return r, nil
		}
	}
	return nil, fmt.Errorf("passage %q: %w", id, library.ErrNotFound)
}

func (f *fakeLib) Original(ctx context.Context, docID string) (*library.Original, error) {
	d, err := f.doc(docID)
	if err != nil {
		return nil, err
	}
	return &library.Original{Name: d.name, MediaType: d.mediaType, Content: bytes.NewReader(d.data), Size: int64(len(d.data))}, nil
}

// View shows each page of a document as a unit.
func (f *fakeLib) View(ctx context.Context, docID string) (*library.View, error) {
	d, err := f.doc(docID)
	if err != nil {
		return nil, err
	}
	v := &library.View{ID: d.id, Title: d.name, MediaType: d.mediaType, Name: d.name}
	for i, p := range d.pages {
		n := strconv.Itoa(i + 1)
		v.Units = append(v.Units, library.ViewUnit{Anchor: "page-" + n, Heading: "Page " + n, Parts: []library.ViewPart{{Text: p}}})
	}
	return v, nil
}

// doc returns a copy of the document docID, or library.ErrNotFound.
func (f *fakeLib) doc(docID string) (fakeDoc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.docs {
		if d.id == docID {
			return d, nil
		}
	}
	return fakeDoc{}, fmt.Errorf("document %q: %w", docID, library.ErrNotFound)
}

func (f *fakeLib) Summary(ctx context.Context) (library.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := library.Summary{Documents: len(f.docs)}
	for _, d := range f.docs {
		s.Chunks += len(d.pages)
		s.Titles = append(s.Titles, d.name)
	}
	return s, nil
}

// checkQuery is the validation the real library does, which the fakes
// share: a blank query is ErrEmptyQuery, a long one a *QueryTooLongError.
func checkQuery(query string, so library.SearchOptions) error {
	query = strings.TrimSpace(query)
	if query == "" {
		return library.ErrEmptyQuery
	}
	if n := utf8.RuneCountInString(query); so.MaxQueryLen > 0 && n > so.MaxQueryLen {
		return &library.QueryTooLongError{Len: n, Max: so.MaxQueryLen}
	}
	return nil
}
