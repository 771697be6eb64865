package library

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/store"
)

// Documents lists every document without its text, in id order. It is safe
// for concurrent use and returns the backend's errors.
func (l *Library) Documents(ctx context.Context) ([]*store.Document, error) {
	return l.be.Documents()
}

// Document returns one document with its text and its passages in order.
// It returns ErrNotFound for an unknown id, else the backend's errors.
func (l *Library) Document(ctx context.Context, id string) (*store.Document, []*store.Chunk, error) {
	d, err := l.be.Document(id, true)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, nil, err
	}
	chunks, err := l.be.Chunks(d.Chunks)
	if err != nil {
		return nil, nil, fmt.Errorf("passages of %s: %w", id, err)
	}
	return d, chunks, nil
}
