package weaviate

import (
	"context"

	"github.com/mcpvec/mcpvec/store"
)

// The methods below give a Backend the shape of the embedded store.DB that
// ingest and the commands use (document lookups, the embedder identity,
// settings), each with a context bounded by Options.Timeout.

// Path is the collection's URL, where an embedded library has its file.
func (b *Backend) Path() string { return b.url }

// DocumentInfo returns a document without its text, or store.ErrNotFound.
func (b *Backend) DocumentInfo(id string) (*store.Document, error) {
	return b.Document(context.Background(), id, false)
}

// DocumentByPath returns the document ingested from path, or
// store.ErrNotFound (library.Backend's lookup for ingest).
func (b *Backend) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	return b.st.DocumentByPath(ctx, path)
}

// Meta reads the collection's meta record.
func (b *Backend) Meta() (store.Meta, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	return b.st.Meta(ctx)
}

// SetEmbedder records the embedder identity or checks it
// (store.ErrEmbedderMismatch).
func (b *Backend) SetEmbedder(e store.EmbedderInfo) error {
	ctx, cancel := b.ctx()
	defer cancel()
	return b.st.SetEmbedder(ctx, e)
}

// SettingOrCreate returns a named setting, creating it when absent; racing
// processes all get the one value stored.
func (b *Backend) SettingOrCreate(name string, create func() ([]byte, error)) ([]byte, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	return b.st.SettingOrCreate(ctx, name, create)
}
