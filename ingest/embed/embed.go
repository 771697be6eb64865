package embed

import (
	"context"
	"errors"
)

// Embedder turns texts into vectors of Identity().Dimensions float32s.
// Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order, for passages being stored.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector for a search query (some models embed
	// queries differently from passages).
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
	// Identity names the model as the library records it (provider, model,
	// dimensions, base URL); it never contains secrets.
	Identity() Identity
}

// QueryWeighter is an Embedder whose query vectors can weigh each query
// word, e.g. by the idf of the library's lexical index (the offline
// embedder, Hash.SetQueryWeight). The func must be safe for concurrent use.
type QueryWeighter interface {
	SetQueryWeight(weight func(word string) float64)
}

// Errors shared by the embedders, returned wrapped.
var (
	// ErrBadVector: a provider answered with a vector of the wrong length,
	// NaN/Inf values or all zeros.
	ErrBadVector = errors.New("embed: bad vector")
	// ErrPanic: a panic inside an embedder (in caller-supplied code such as
	// a query weight or a token counter) was recovered; it never crosses
	// the package boundary.
	ErrPanic = errors.New("embed: recovered panic")
)
