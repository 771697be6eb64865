package weaviate

import (
	"context"

	"github.com/mcpvec/mcpvec/store"
)

// Path is the collection's URL, where an embedded library has its file.
func (b *Backend) Path() string { return b.coll.URL() }

// DocumentByPath returns the document ingested from path, or
// store.ErrNotFound (library.Backend's lookup for ingest).
func (b *Backend) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	return b.coll.DocumentByPath(ctx, path)
}
