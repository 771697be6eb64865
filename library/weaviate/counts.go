package weaviate

import (
	"context"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// Counts reports the passage count (every passage has its vector, so the
// lexical and vector counts are equal) and the embedder's dimensions.
func (b *Backend) Counts(ctx context.Context) library.IndexStats {
	b.mu.Lock()
	if time.Since(b.countsAt) < b.opts.CountsTTL {
		defer b.mu.Unlock()
		return b.counts
	}
	b.mu.Unlock()
	ctx, cancel := b.bound(ctx)
	defer cancel()
	var st library.IndexStats
	s, err := b.st.Stats(ctx)
	if err != nil {
		b.opts.Logger.Warn("weaviate: count passages", "err", err)
		return st
	}
	m, err := b.st.Meta(ctx)
	if err != nil {
		b.opts.Logger.Warn("weaviate: read meta", "err", err)
		return st
	}
	st.LexicalPassages = s.Chunks
	if m.Embedder != nil {
		st.VectorPassages, st.Dimensions = s.Vectors, m.Embedder.Dimensions
	}
	b.mu.Lock()
	b.counts, b.countsAt = st, time.Now()
	b.mu.Unlock()
	return st
}

func (b *Backend) forgetCounts() {
	b.mu.Lock()
	b.countsAt = time.Time{}
	b.mu.Unlock()
}

// Check reads the collection's meta and counts. Weaviate keeps passage,
// vector and index in one object, so it is consistent when every document's
// passages are all present and no passage lacks its document.
func (b *Backend) Check(ctx context.Context) (library.Health, error) {
	var h library.Health
	var err error
	if h.Meta, err = b.st.Meta(ctx); err != nil {
		return h, err
	}
	if h.Stats, err = b.st.Stats(ctx); err != nil {
		return h, err
	}
	h.Problems = b.st.Check(ctx)
	b.forgetCounts()
	h.Index = b.Counts(ctx)
	h.Consistent = h.Problems == nil && h.Index.LexicalPassages == h.Stats.Chunks
	return h, nil
}
