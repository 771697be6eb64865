package library

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvec/mcpvec/library/query"
	"github.com/mcpvec/mcpvec/store"
)

// plan is what a search's operators (library/query) make of it: the text
// the retrievers rank by, the passages they may rank (nil: all), the test
// a passage's text must pass (nil: none) and notes on operators that
// match nothing.
type plan struct {
	q       query.Query
	filter  *Filter
	passage *query.Passage
	kept    []*store.Document // the documents the filter allows (listings)
	notes   []string
}

// maxListed bounds the passages a query of operators alone walks through.
const maxListed = 100_000

// plan parses raw's operators and, when it has document operators,
// computes their filter from the document list (kept by version between
// searches: Library.documents). Errors are the backend's.
func (l *Library) plan(ctx context.Context, raw string) (*plan, error) {
	p := &plan{q: query.Parse(raw)}
	if !p.q.Filtered() {
		return p, nil
	}
	p.passage = p.q.Passage()
	if !p.q.HasDocFilter() {
		return p, nil
	}
	docs, err := l.documents(ctx)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, d := range docs {
		total += len(d.Chunks)
		if p.q.MatchDocument(d) {
			p.kept = append(p.kept, d)
		}
	}
	p.filter = newFilter(p.kept, total)
	if len(p.kept) == 0 {
		p.notes = emptyNotes(docs, &p.q)
	}
	return p, nil
}

// emptyNotes says which operators match no document, or that they match
// none together.
func emptyNotes(docs []*store.Document, q *query.Query) []string {
	var notes []string
	for _, k := range q.Kinds() {
		switch {
		case slices.ContainsFunc(docs, k.Match):
		case strings.HasPrefix(k.Name, "-"):
			notes = append(notes, fmt.Sprintf("%s excludes every document in the library", k.Name))
		default:
			notes = append(notes, fmt.Sprintf("%s matches no document in the library", k.Name))
		}
	}
	if len(notes) == 0 {
		notes = append(notes, fmt.Sprintf("the operators %s together match no document", strings.Join(q.Operators, " ")))
	}
	return notes
}

// passageNote is the note of a search whose phrase or exclusions left no
// passage.
func passageNote(q *query.Query) string {
	var parts []string
	for _, ph := range q.Phrases {
		parts = append(parts, fmt.Sprintf("%q", ph))
	}
	for _, n := range q.Not {
		parts = append(parts, "-"+n)
	}
	return fmt.Sprintf("no passage matched %s", strings.Join(parts, " "))
}

// listing is the answer to a query of operators alone: the passages of the
// documents they keep (every document when only passage tests are given),
// newest document first (query.Date; ties by title), each document's
// passages in order, at most maxListed. Scores are 0.
func (l *Library) listing(ctx context.Context, p *plan) ([]Hit, error) {
	docs := p.kept
	if p.filter == nil {
		all, err := l.documents(ctx)
		if err != nil {
			return nil, err
		}
		docs = all
	}
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(a, b *store.Document) int {
		if c := query.Date(b).Compare(query.Date(a)); c != 0 {
			return c
		}
		return cmp.Compare(a.Title, b.Title)
	})
	var hits []Hit
	for _, d := range docs {
		for _, s := range d.Chunks {
			if len(hits) == maxListed {
				return hits, nil
			}
			hits = append(hits, Hit{Seq: s})
		}
	}
	return hits, nil
}
