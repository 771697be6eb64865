package openai

import (
	"context"
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Provider is the provider name of this package's embedders.
const Provider = "openai"

// Linking this package in registers it with embed.Open.
func init() {
	embed.Register(embed.Provider{Name: Provider, Open: open, Traits: traits})
}

// officialHost reports whether base (a base URL; "" is DefaultBaseURL) is
// OpenAI's own API rather than a compatible server (Ollama and the like).
// Several defaults follow it: batch sizes, timeouts, the key being
// required, base64 vectors.
func officialHost(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// traits: a network embedder; a batch is one request (256 inputs to
// api.openai.com, 64 to other servers, which may embed on a CPU), so that a
// kill loses at most the requests in flight.
func traits(id embed.Identity) embed.Traits {
	if officialHost(id.BaseURL) {
		return embed.Traits{Batch: 256}
	}
	return embed.Traits{Batch: 64}
}

// open builds the embedder of id with the user's options, probing the
// server; it asks for shortened vectors only when the model's own size
// differs from id's (embed.OpenDimensions). Errors are New's.
func open(ctx context.Context, id embed.Identity, o embed.Options) (embed.Embedder, error) {
	return embed.OpenDimensions(id.Dimensions, func(dims int) (embed.Embedder, error) {
		e, err := New(ctx, Config{
			APIKey: o.APIKey, APIKeyName: o.APIKeyName, BaseURL: id.BaseURL, Model: id.Model,
			Dimensions: dims, Concurrency: o.Concurrency,
		})
		if err != nil {
			return nil, err // not a nil *Embedder in a non-nil interface
		}
		return e, nil
	})
}
