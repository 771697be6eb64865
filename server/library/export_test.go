package library

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/index"
)

// VectorIndex returns the embedded backend's vector index (nil before the
// library has vectors), for the package's external tests.
func VectorIndex(l *Library) *index.Index { return l.be.(*embedded).vectors() }

// VectorCandidates is the vector half of a search as Search runs it with
// the library's defaults: the query embedded by the library's embedder and
// the candidate list the backend's vector retriever returns for fusion,
// best first, before overlapping passages are dropped. It returns the query
// vector too.
func VectorCandidates(ctx context.Context, l *Library, query string) ([]float32, []Hit, error) {
	v, err := l.emb.EmbedQuery(ctx, strings.TrimSpace(query))
	if err != nil {
		return nil, nil, fmt.Errorf("embed query: %w", err)
	}
	c, err := l.be.Candidates(ctx, Query{Text: query, Vector: v, Mode: Vector, N: max(l.opts.Candidates, 3*l.opts.K)})
	return v, c.Vector, err
}

// SetDeferredRead makes fn run inside every deferred vector load, after its
// read transaction and before it replays the writes queued meanwhile; the
// returned func undoes it.
func SetDeferredRead(fn func()) (restore func()) {
	deferredRead = fn
	return func() { deferredRead = nil }
}

// VectorsDeferred reports whether Open deferred l's vector index and it is
// not loaded yet, and whether its load has begun.
func VectorsDeferred(l *Library) (pending, begun bool) {
	d := l.be.(*embedded).pending()
	return d != nil, d != nil && d.begun.Load()
}
