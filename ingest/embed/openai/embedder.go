package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Errors returned (wrapped) by the OpenAI embedder, besides
// embed.ErrBadVector and embed.ErrPanic.
var (
	// ErrMissingAPIKey: the base URL is api.openai.com and no key was given.
	ErrMissingAPIKey = errors.New("embed: missing OpenAI API key")
	// ErrBadResponse: the server answered 2xx with something that is not a
	// usable embeddings list (malformed JSON, unknown or duplicate index,
	// inputs left unanswered after every retry).
	ErrBadResponse = errors.New("embed: bad response from embeddings server")
	// ErrRetriesExhausted: a retryable failure (429, 5xx, timeout, dropped
	// connection) persisted through every retry; the last cause is wrapped
	// too, so errors.As finds the *goopenai.APIError when there is one.
	ErrRetriesExhausted = errors.New("embed: retries exhausted")
	// ErrConfig: Config is invalid.
	ErrConfig = errors.New("embed: invalid config")
)

// Usage counts what an OpenAI embedder has sent, for cost reports.
type Usage struct {
	Requests        int64 // HTTP requests, including retries
	Retries         int64 // requests that were retries
	Inputs          int64 // inputs sent, including re-sent ones
	EstimatedTokens int64 // estimated tokens sent, including re-sent ones
	ReportedTokens  int64 // tokens the server reported billing; 0 if it never says
	CacheHits       int64 // EmbedQuery answers served from the cache
}

// Tokens returns the server-reported token count, or the estimate when the
// server does not report usage (older Ollama, some proxies).
func (u Usage) Tokens() int64 {
	if u.ReportedTokens > 0 {
		return u.ReportedTokens
	}
	return u.EstimatedTokens
}

// Embedder embeds through the OpenAI embeddings API or any server speaking it
// (Ollama, LM Studio, vLLM, LocalAI, llama.cpp server). It is safe for
// concurrent use; Concurrency bounds the requests in flight across all
// callers together.
//
// Caveats:
//   - Embed is all or nothing: if one batch fails after its retries, the
//     vectors of the batches that succeeded are dropped (and were paid
//     for). Callers that must not pay twice call Embed per file or per few
//     thousand chunks and persist each result.
//   - Token limits are enforced on the CountTokens estimate, not on the
//     server's tokenizer. The default, analysis.EstimateTokens, errs high on
//     most text (about 1.2x on English) but can undercount by about 15%
//     (German compounds), so a text near MaxInputTokens may still exceed
//     the model's real limit; passages (512 estimated tokens by default)
//     are far below it.
//   - A text split because it is over MaxInputTokens gets the mean of its
//     pieces' vectors, which is blurrier than a vector of a shorter text.
//   - Against api.openai.com vectors travel as base64; elsewhere as JSON
//     floats (encoding_format left out), which every compatible server
//     understands, unless EncodingFormat says otherwise. A base64 answer
//     whose length is not a multiple of 4 bytes is ErrBadVector (length).
//   - A server that ignores "dimensions" (older Ollama) is caught by the
//     probe or by the first answer: vectors of the wrong length are
//     ErrBadVector, never stored.
//   - Retry-After longer than 5 minutes is not waited out: the call fails.
type Embedder struct {
	cfg     Config
	baseURL string // sanitized, for Identity and messages
	client  *goopenai.Client
	sem     chan struct{}
	count   func(string) int
	log     *slog.Logger
	cache   *embed.QueryCache
	dims    atomic.Int64

	requests, retries, inputs, estTokens, repTokens, cacheHits atomic.Int64
	warnIndexOnce                                              sync.Once
}

var _ embed.Embedder = (*Embedder)(nil)

// New checks cfg and, unless cfg.SkipProbe, embeds one short string to
// learn the dimensions and prove the server is reachable, so a bad key, URL
// or model fails here rather than on the first query. Errors wrap ErrConfig,
// ErrMissingAPIKey, or those of Probe.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	o, err := newEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.SkipProbe {
		if err := o.Probe(ctx); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func newEmbedder(cfg Config) (*Embedder, error) {
	cfg, base, err := defaults(cfg)
	if err != nil {
		return nil, err
	}
	clean, query, err := sanitizeURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	wire := goopenai.DefaultConfig(cfg.APIKey)
	wire.BaseURL = base
	wire.HTTPClient = &doer{client: cfg.HTTPClient, query: query}
	o := &Embedder{
		cfg:     cfg,
		baseURL: clean,
		client:  goopenai.NewClientWithConfig(wire),
		sem:     make(chan struct{}, cfg.Concurrency),
		count:   cfg.CountTokens,
		log:     cfg.Logger,
		cache:   embed.NewQueryCache(cfg.QueryCacheSize),
	}
	o.dims.Store(int64(cfg.Dimensions))
	return o, nil
}

// Identity returns provider Provider ("openai"), the model, the dimensions
// (0 until the probe or first answer when SkipProbe was set) and the base
// URL without userinfo or query. Safe for concurrent use.
func (o *Embedder) Identity() embed.Identity {
	return embed.Identity{Provider: Provider, Model: o.cfg.Model, Dimensions: int(o.dims.Load()), BaseURL: o.baseURL}
}

// Usage returns a snapshot of the counters. Safe for concurrent use.
func (o *Embedder) Usage() Usage {
	return Usage{
		Requests: o.requests.Load(), Retries: o.retries.Load(), Inputs: o.inputs.Load(),
		EstimatedTokens: o.estTokens.Load(), ReportedTokens: o.repTokens.Load(), CacheHits: o.cacheHits.Load(),
	}
}

// Probe embeds one short string (one retry, Timeout per attempt) to check
// that the server is reachable, the key and model are accepted and the
// vectors have the expected dimensions; it learns the dimensions when none
// were configured. Errors name the base URL and model and wrap the cause
// (ErrBadVector on a dimension mismatch, *goopenai.APIError on HTTP errors).
func (o *Embedder) Probe(ctx context.Context) error {
	if _, err := o.embedWith(ctx, []string{"mcpvec probe"}, min(o.cfg.MaxRetries, 1), o.cfg.Timeout); err != nil {
		return fmt.Errorf("probe embeddings at %s (model %q): %w", o.baseURL, o.cfg.Model, err)
	}
	return nil
}

// Embed returns one vector per text, in order. It batches by count and
// token budget, runs up to Concurrency requests at once and retries 429,
// 5xx, timeouts and dropped connections with backoff. Texts over
// MaxInputTokens are split and their pieces' vectors averaged; empty texts
// are sent as a single space. On error nothing is returned; the error wraps
// ErrBadVector, ErrBadResponse, ErrRetriesExhausted, an HTTP error
// (*goopenai.APIError) or ctx's error. Safe for concurrent use.
func (o *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := o.embedWith(ctx, texts, o.cfg.MaxRetries, o.cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
	}
	return vecs, nil
}

// EmbedQuery embeds one search query with QueryTimeout per attempt and one
// retry, and caches the answer (LRU, QueryCacheSize entries). The returned
// slice is the caller's to keep. Errors as for Embed. Safe for concurrent
// use.
func (o *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	if v, ok := o.cache.Get(query); ok {
		o.cacheHits.Add(1)
		return v, nil
	}
	vecs, err := o.embedWith(ctx, []string{query}, min(o.cfg.MaxRetries, 1), o.cfg.QueryTimeout)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	o.cache.Put(query, vecs[0])
	return vecs[0], nil
}

func (o *Embedder) embedWith(ctx context.Context, texts []string, retries int, timeout time.Duration) (_ [][]float32, err error) {
	defer recoverPanic(&err)
	if len(texts) == 0 {
		return nil, nil
	}
	pieces := makePieces(texts, o.cfg.MaxInputTokens, o.count)
	batches := plan(pieces, o.cfg.MaxBatchInputs, o.cfg.MaxBatchTokens)
	vecs := make([][]float32, len(pieces))
	if err := o.runBatches(ctx, pieces, batches, vecs, retries, timeout); err != nil {
		return nil, err
	}
	return combine(pieces, vecs, len(texts)), nil
}

// runBatches embeds every batch with at most Concurrency batches of this
// call in flight; the first failure cancels the rest.
func (o *Embedder) runBatches(ctx context.Context, pieces []piece, batches [][2]int, vecs [][]float32, retries int, timeout time.Duration) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.cfg.Concurrency)
	for _, b := range batches {
		if gctx.Err() != nil {
			break // a batch failed or ctx is done: start no more
		}
		g.Go(func() error {
			err := o.safeBatch(gctx, pieces[b[0]:b[1]], vecs[b[0]:b[1]], retries, timeout)
			if err != nil {
				return fmt.Errorf("batch of %d inputs (texts %d..%d): %w", b[1]-b[0], pieces[b[0]].owner, pieces[b[1]-1].owner, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// Batches may have been skipped because ctx ended.
	return context.Cause(ctx)
}

// safeBatch is embedBatch with a panic (from a CountTokens hook or the
// HTTP stack) turned into an error, since it runs on its own goroutine.
func (o *Embedder) safeBatch(ctx context.Context, pieces []piece, out [][]float32, retries int, timeout time.Duration) (err error) {
	defer recoverPanic(&err)
	return o.embedBatch(ctx, pieces, out, retries, timeout)
}

// recoverPanic turns a panic into an error wrapping ErrPanic.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", embed.ErrPanic, r)
	}
}
