// Package embed turns passages and queries into vectors.
//
// An Embedder is one small interface; each provider lives in its own file
// (hash.go: the built-in offline embedder; openai.go: OpenAI and every
// OpenAI-compatible server). cmd/mcpvec builds one value and passes it to
// both the ingest pipeline and the query path.
package embed

import (
	"context"
	"errors"
)

// Identity names the embedder a library was built with. It is stored in the
// library's meta record; a library refuses vectors from a different identity.
type Identity struct {
	Provider   string `json:"provider"`           // "hash", "openai"
	Model      string `json:"model"`              // e.g. "text-embedding-3-small"
	Dimensions int    `json:"dimensions"`         // length of every vector
	BaseURL    string `json:"base_url,omitempty"` // without credentials
}

// Embedder turns texts into vectors of Identity().Dimensions float32s.
// Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order, for passages being stored.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector for a search query (some models embed
	// queries differently from passages).
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
	// Identity describes the model; it never contains secrets.
	Identity() Identity
}

// ErrBadVector is returned (wrapped) when a provider answers with a vector of
// the wrong length, NaN/Inf values or all zeros.
var ErrBadVector = errors.New("embed: bad vector")
