package library

import (
	"context"
	"log/slog"
)

// Embedder turns passages into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedCacheOptions configures an EmbedCacher's cache (EmbedCacher.EmbedCache).
// Zero values mean the defaults.
type EmbedCacheOptions struct {
	// Batch is the number of passages embedded and committed together
	// (default 256). Matching the wrapped embedder's request size means a
	// kill loses at most the requests in flight.
	Batch int
	// Parallel is the number of batches in flight per Embed call (default 4).
	Parallel int
	// Committed, if set, is called after each cache commit with the number
	// of passages it saved; calls are serialised. Progress shown from it
	// counts only work a kill would not lose.
	Committed func(passages int)
	// Logger receives a warning when a batch cannot be saved (default
	// slog.Default()).
	Logger *slog.Logger
}

// EmbedCacheStats counts what a CachingEmbedder did.
type EmbedCacheStats struct {
	Cached   int64 // passages answered from the cache
	Embedded int64 // passages the wrapped embedder answered
	Batches  int64 // batches committed to the cache
}
