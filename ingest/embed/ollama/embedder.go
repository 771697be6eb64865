package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Provider is the provider name of this package's embedders.
const Provider = "ollama"

// probeInput is what New embeds to learn the dimensions.
const probeInput = "mcpvec probe"

// Embedder embeds through a running Ollama's POST /api/embed. It is safe
// for concurrent use; Concurrency bounds the requests in flight across all
// callers together. Embed is all or nothing: when one batch fails after
// its retries, no vector of the call is returned.
type Embedder struct {
	cfg   Config
	sem   chan struct{}
	log   *slog.Logger
	cache *embed.QueryCache
	dims  atomic.Int64

	requests, retries, inputs, tokens, cacheHits atomic.Int64
}

var _ embed.Embedder = (*Embedder)(nil)

// Usage counts what an Embedder has sent.
type Usage struct {
	Requests  int64 // HTTP requests, model checks and retries included
	Retries   int64 // requests that were retries
	Inputs    int64 // texts sent, re-sent ones included
	Tokens    int64 // tokens Ollama reports evaluating (prompt_eval_count)
	CacheHits int64 // EmbedQuery answers served from the cache
}

// New checks cfg and, unless cfg.SkipProbe, asks the server for its models
// (GET /api/tags) and embeds one short string to learn the dimensions, so
// that a stopped server or a model not pulled fails here, with the command
// that fixes it, rather than at the first query. Errors wrap ErrConfig,
// ErrNotRunning, ErrModelMissing, ErrNotOllama, ErrBadResponse,
// ErrRetriesExhausted, embed.ErrBadVector or ctx's error.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	cfg, err := defaults(cfg)
	if err != nil {
		return nil, err
	}
	o := &Embedder{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), log: cfg.Logger, cache: embed.NewQueryCache(cfg.QueryCacheSize)}
	o.dims.Store(int64(cfg.Dimensions))
	if cfg.SkipProbe {
		return o, nil
	}
	if err := o.checkModel(ctx); err != nil {
		return nil, err
	}
	if _, err := o.embedAll(ctx, []string{probeInput}, min(cfg.MaxRetries, 1), cfg.Timeout); err != nil {
		return nil, fmt.Errorf("probe embeddings at %s (model %q): %w", cfg.BaseURL, cfg.Model, err)
	}
	return o, nil
}

// checkModel asks for the local models and looks for cfg.Model among them.
func (o *Embedder) checkModel(ctx context.Context) error {
	var tags tagsResponse
	// One attempt: this is the first contact, and a stopped server is
	// better reported at once than after a retry.
	if err := o.call(ctx, "/api/tags", nil, maxTagsBody, 0, o.cfg.QueryTimeout, &tags); err != nil {
		return fmt.Errorf("list models: %w", err)
	}
	want := canonicalModel(o.cfg.Model)
	for _, m := range tags.Models {
		if canonicalModel(m.Name) == want || canonicalModel(m.Model) == want {
			return nil
		}
	}
	return o.missing(fmt.Sprintf("it has %d models", len(tags.Models)))
}

// canonicalModel is a model name as Ollama resolves it: without a tag it
// is ":latest", and names are case-insensitive.
func canonicalModel(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return ""
	}
	if !strings.Contains(n[strings.LastIndex(n, "/")+1:], ":") {
		n += ":latest"
	}
	return n
}

// Identity returns provider Provider ("ollama"), the model, the dimensions
// (0 until the probe or first answer when SkipProbe was set) and the base
// URL. Safe for concurrent use.
func (o *Embedder) Identity() embed.Identity {
	return embed.Identity{Provider: Provider, Model: o.cfg.Model, Dimensions: int(o.dims.Load()), BaseURL: o.cfg.BaseURL}
}

// Usage returns a snapshot of the counters. Safe for concurrent use.
func (o *Embedder) Usage() Usage {
	return Usage{Requests: o.requests.Load(), Retries: o.retries.Load(), Inputs: o.inputs.Load(), Tokens: o.tokens.Load(),
		CacheHits: o.cacheHits.Load()}
}

// Embed returns one vector per text, in order: batches of MaxBatchInputs,
// up to Concurrency at once, each retried on 5xx, timeouts and refused or
// dropped connections with backoff. Empty texts are sent as one space.
// Errors as for New. Safe for concurrent use.
func (o *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := o.embedAll(ctx, texts, o.cfg.MaxRetries, o.cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
	}
	return vecs, nil
}

// EmbedQuery embeds one search query with QueryTimeout per attempt and one
// retry, and caches the answer (QueryCacheSize entries); the returned
// slice is the caller's. Errors as for Embed. Safe for concurrent use.
func (o *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	if v, ok := o.cache.Get(query); ok {
		o.cacheHits.Add(1)
		return v, nil
	}
	vecs, err := o.embedAll(ctx, []string{query}, min(o.cfg.MaxRetries, 1), o.cfg.QueryTimeout)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	o.cache.Put(query, vecs[0])
	return vecs[0], nil
}

// embedAll embeds texts in batches, at most Concurrency of them in flight;
// the first failure cancels the rest.
func (o *Embedder) embedAll(ctx context.Context, texts []string, retries int, timeout time.Duration) (_ [][]float32, err error) {
	defer recoverPanic(&err)
	out := make([][]float32, len(texts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.cfg.Concurrency)
	for start := 0; start < len(texts) && gctx.Err() == nil; start += o.cfg.MaxBatchInputs {
		end := min(start+o.cfg.MaxBatchInputs, len(texts))
		g.Go(func() (err error) {
			defer recoverPanic(&err)
			return o.batch(gctx, texts[start:end], out[start:end], retries, timeout)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx) // batches may have been skipped
	}
	return out, nil
}

// batch embeds texts into out with one request (and its retries).
func (o *Embedder) batch(ctx context.Context, texts []string, out [][]float32, retries int, timeout time.Duration) error {
	req := embedRequest{Model: o.cfg.Model, Input: make([]string, len(texts)), Truncate: true,
		Dimensions: o.cfg.Dimensions, KeepAlive: o.cfg.KeepAlive}
	for i, t := range texts {
		if req.Input[i] = t; strings.TrimSpace(t) == "" {
			req.Input[i] = " "
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	o.inputs.Add(int64(len(texts)))
	var resp embedResponse
	if err := o.call(ctx, "/api/embed", body, o.answerLimit(len(texts)), retries, timeout, &resp); err != nil {
		return err
	}
	o.tokens.Add(resp.PromptEvalCount)
	if len(resp.Embeddings) != len(texts) {
		return fmt.Errorf("%w: %d embeddings for %d inputs", ErrBadResponse, len(resp.Embeddings), len(texts))
	}
	for i, v := range resp.Embeddings {
		if len(v) > 0 {
			o.dims.CompareAndSwap(0, int64(len(v)))
		}
		if err := embed.CheckVector(v, int(o.dims.Load())); err != nil {
			return fmt.Errorf("input %d (model %q): %w", i, o.cfg.Model, err)
		}
		out[i] = v
	}
	return nil
}

// answerLimit bounds the bytes read of an answer to n inputs: at most 32
// bytes a number (Go writes a float32 in at most 15, plus the comma), for
// the known dimensions or, before they are known, 8192 of them.
func (o *Embedder) answerLimit(n int) int64 {
	dims := o.dims.Load()
	if dims <= 0 {
		dims = 8192
	}
	return 64<<10 + int64(n)*dims*32
}

// recoverPanic turns a panic into an error wrapping embed.ErrPanic.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", embed.ErrPanic, r)
	}
}
