package embed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrUnknownProvider: no registered provider has the identity's provider
// name (Open).
var ErrUnknownProvider = errors.New("unknown embedder")

// Options are what a user supplies to build an embedder besides its
// recorded identity. A provider ignores what it does not use.
type Options struct {
	// APIKey authenticates with a network provider (openai: required for
	// api.openai.com, optional elsewhere).
	APIKey string
	// APIKeyName says where the user sets the key (cmd/mcpvec passes
	// "OPENAI_API_KEY"); error hints name it.
	APIKeyName string
	// Concurrency bounds the requests in flight; 0 = the provider's default.
	Concurrency int
	// Models holds the models fitted on the library (provider "corpus");
	// nil when the library is not a file.
	Models ModelStore
}

// Provider is one kind of embedder in the registry: how to build one from
// an identity, and what its embedders are (Traits).
type Provider struct {
	Name string // Identity.Provider of its embedders
	// Open builds the embedder of id (id.Provider is Name), checking what
	// it can now (a network provider probes its server), so that a bad key
	// or a gone model fails here rather than at the first query.
	Open func(ctx context.Context, id Identity, o Options) (Embedder, error)
	// Traits describes the embedders of id, from the identity alone (a
	// library is opened without its embedder, e.g. for lexical search).
	// Nil means the traits of an unknown network embedder.
	Traits func(id Identity) Traits
}

// The registry. The offline embedder is always there; other providers
// register themselves when their package is linked in (an init func, as
// database/sql drivers do), since this package cannot import them: they
// import it for the Embedder interface.
var (
	regMu     sync.RWMutex
	providers = map[string]Provider{HashProvider: hashProvider}
)

// Register adds p to the registry; a provider of the same name is
// replaced. Safe for concurrent use; providers call it from init.
func Register(p Provider) {
	regMu.Lock()
	defer regMu.Unlock()
	providers[p.Name] = p
}

func lookup(name string) (Provider, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	p, ok := providers[name]
	return p, ok
}

// Open builds the embedder of a recorded or requested identity with the
// user's options; an identity without a provider is the offline
// embedder's. Only linked-in providers are known (import
// ingest/embed/openai for "openai"). Errors wrap ErrUnknownProvider, or
// are the provider's (wrong model, missing key, unreachable server). Safe
// for concurrent use.
func Open(ctx context.Context, id Identity, o Options) (Embedder, error) {
	if id.Provider == "" {
		id.Provider = HashProvider
	}
	p, ok := lookup(id.Provider)
	if !ok || p.Open == nil {
		return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownProvider, id.Provider, providerNames())
	}
	return p.Open(ctx, id, o)
}

// TraitsOf returns the traits of id's embedders, as its provider reports
// them; an identity of no registered provider gets those of a network
// embedder (not local, not lexical-grade, batches of 256). Safe for
// concurrent use.
func TraitsOf(id Identity) Traits {
	if id.Provider == "" {
		id.Provider = HashProvider
	}
	if p, ok := lookup(id.Provider); ok && p.Traits != nil {
		return p.Traits(id)
	}
	return defaultTraits
}

// providerNames lists the registered providers: "hash or openai".
func providerNames() string {
	regMu.RLock()
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	regMu.RUnlock()
	slices.Sort(names)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
