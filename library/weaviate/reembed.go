package weaviate

import (
	"context"
	"fmt"

	"github.com/mcpvec/mcpvec/store"
)

// Reembed is a new embedder for CopyInto: Embed returns one vector per
// text, of the dimensions Identity records.
type Reembed struct {
	Identity store.EmbedderInfo
	Embed    func(ctx context.Context, texts []string) ([][]float32, error)
}

// CopyInto copies b into another collection dst, re-embedding every
// passage with r: the Weaviate form of `mcpvec reindex`. A collection's
// vectors cannot change dimensions in place, so the new vectors are staged
// in dst while b keeps serving; switching means pointing the servers at
// dst. Documents, text, page starts, originals and opts.Settings are copied
// as they are, without extraction. Like CopyFrom it is resumable: a
// document already in dst with the same content hash and passage count is
// skipped, so only what an interrupted run had not written is embedded
// again. dst must be empty or hold r.Identity's vectors
// (store.ErrEmbedderMismatch); errors are r.Embed's, ctx's or either
// collection's.
func (b *Collection) CopyInto(ctx context.Context, dst *Collection, r Reembed, opts CopyOptions) (CopyProgress, error) {
	if r.Embed == nil {
		return CopyProgress{}, fmt.Errorf("copy into %s: no embedder", dst.name)
	}
	if dst.name == b.name && dst.c.base == b.c.base {
		return CopyProgress{}, fmt.Errorf("copy into %s: source and destination are the same collection", dst.name)
	}
	return copyLibrary(ctx, reembedSide{backendSide{b}, r}, backendSide{dst}, opts)
}

// reembedSide is a source whose passages get new vectors as they are read.
type reembedSide struct {
	backendSide
	r Reembed
}

func (s reembedSide) meta(ctx context.Context) (store.Meta, error) {
	m, err := s.backendSide.meta(ctx)
	id := s.r.Identity
	m.Embedder = &id
	return m, err
}

func (s reembedSide) read(ctx context.Context, d *store.Document) (*store.Document, []store.Chunk, [][]float32, []byte, error) {
	full, chunks, _, original, err := s.backendSide.read(ctx, d)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	vecs, err := s.r.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d passages", len(vecs), len(texts))
	}
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("embed passages: %w", err)
	}
	return full, chunks, vecs, original, nil
}
