package library

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/store"
)

// Document returns one document with its text and its passages in order.
// It returns ErrNotFound for an unknown id, else the backend's errors.
func (l *Library) Document(ctx context.Context, id string) (*store.Document, []*store.Chunk, error) {
	d, err := l.document(ctx, id, true)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := l.be.Chunks(ctx, d.Chunks)
	if err != nil {
		return nil, nil, fmt.Errorf("passages of %s: %w", id, err)
	}
	return d, chunks, nil
}

// document is the backend's Document with an unknown id reported as
// ErrNotFound naming it.
func (l *Library) document(ctx context.Context, id string, text bool) (*store.Document, error) {
	d, err := l.be.Document(ctx, id, text)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return d, err
}
