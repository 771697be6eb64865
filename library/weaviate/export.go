package weaviate

import (
	"context"

	"github.com/mcpvec/mcpvec/store"
)

// FullDocument returns the document id with its text, its passages in
// order with their vectors, and its original bytes (nil: none kept), as a
// copy out of the collection reads them (mcpvec export). It returns an
// error wrapping store.ErrNotFound for an unknown id. Safe for concurrent
// use.
func (b *Collection) FullDocument(ctx context.Context, id string) (DocumentWrite, error) {
	doc, chunks, vecs, original, err := backendSide{b}.read(ctx, &store.Document{ID: id})
	return DocumentWrite{Doc: doc, Chunks: chunks, Vectors: vecs, Original: original}, err
}
