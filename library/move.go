package library

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// ErrMoveUnsupported is returned by Move when the backend cannot change a
// document's path in place; the caller re-ingests the file instead.
var ErrMoveUnsupported = errors.New("backend cannot move documents in place")

// Documents lists every document, without text, from the backend. Errors
// are the backend's, ctx's when it ends first (a remote backend).
func (l *Library) Documents(ctx context.Context) ([]*store.Document, error) {
	return l.be.Documents(ctx)
}

// Move points document id at a new source path and URL and records the
// file's modification time, keeping its passages and vectors: a renamed
// file needs no extraction or embedding. A document already at path is
// replaced and dropped from the indexes. It returns ErrNotFound for an
// unknown id, ErrMoveUnsupported for a backend without Mover, otherwise the
// backend's errors (ctx's when it ends first); it is safe for concurrent use.
func (l *Library) Move(ctx context.Context, id, path, sourceURL string, modTime time.Time) error {
	if l.caps.move == nil {
		return ErrMoveUnsupported
	}
	_, err := l.caps.move.Move(ctx, id, path, sourceURL, modTime)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return err
}
