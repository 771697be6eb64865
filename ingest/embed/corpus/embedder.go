package corpus

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Provider is the provider name of embedders trained on the library.
const Provider = "corpus"

// Embedder embeds by folding texts into a Model, counting how much of the
// passages' term mass the model's vocabulary holds (Coverage). Safe for
// concurrent use.
type Embedder struct {
	m         *Model
	in, total atomic.Int64
}

// New returns the embedder of m.
func New(m *Model) *Embedder { return &Embedder{m: m} }

// Model returns the embedder's model.
func (e *Embedder) Model() *Model { return e.m }

// Identity is provider "corpus", a model name carrying the model's digest
// (a refitted model makes other vectors), and its dimensions.
func (e *Embedder) Identity() embed.Identity {
	return embed.Identity{Provider: Provider, Model: ModelName(e.m), Dimensions: e.m.dims}
}

// ModelName is the identity's model name of m: "lsa-" and its digest.
func ModelName(m *Model) string { return "lsa-" + m.id }

// Embed returns one unit vector per text (Model.Vector). The only error is
// ctx's (wrapped), checked between texts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("corpus embed: %w", err)
		}
		out[i] = e.m.Vector(t)
		in, total := e.m.Coverage(t)
		e.in.Add(int64(in))
		e.total.Add(int64(total))
	}
	return out, nil
}

// Unknown returns the share of the term occurrences of the passages
// embedded so far (not queries) that the model's vocabulary lacks, and the
// number of occurrences; a share well above the fitted passages' says the
// library's vocabulary has drifted from the model's.
func (e *Embedder) Unknown() (share float64, terms int64) {
	in, total := e.in.Load(), e.total.Load()
	if total == 0 {
		return 0, 0
	}
	return 1 - float64(in)/float64(total), total
}

// EmbedQuery folds the query in like a passage. The only error is ctx's.
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("corpus embed query: %w", err)
	}
	return e.m.Vector(query), nil
}
