package ollama

import (
	"context"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Linking this package in registers it with embed.Open.
func init() {
	embed.Register(embed.Provider{Name: Provider, Open: open, Traits: traits})
}

// traits: not Local (a request to another process, slower than reading a
// cached vector), not lexical-grade; a batch of 64 is one request, so that
// a kill loses at most the requests in flight, and two batches in flight
// keep the model busy without crowding a laptop's shared CPU or GPU.
func traits(embed.Identity) embed.Traits {
	return embed.Traits{Batch: 64, Parallel: 2}
}

// open builds the embedder of id with the user's options, checking the
// model and probing the server (embed.OpenDimensions). Errors are New's.
func open(ctx context.Context, id embed.Identity, o embed.Options) (embed.Embedder, error) {
	return embed.OpenDimensions(id.Dimensions, func(dims int) (embed.Embedder, error) {
		e, err := New(ctx, Config{BaseURL: id.BaseURL, Model: id.Model, Dimensions: dims, Concurrency: o.Concurrency})
		if err != nil {
			return nil, err // not a nil *Embedder in a non-nil interface
		}
		return e, nil
	})
}
