package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Errors returned (wrapped) by the OpenAI embedder.
var (
	// ErrMissingAPIKey: the base URL is api.openai.com and no key was given.
	ErrMissingAPIKey = errors.New("embed: missing OpenAI API key (set OPENAI_API_KEY)")
	// ErrBadResponse: the server answered 2xx with something that is not a
	// usable embeddings list (malformed JSON, unknown or duplicate index,
	// inputs left unanswered after every retry).
	ErrBadResponse = errors.New("embed: bad response from embeddings server")
	// ErrRetriesExhausted: a retryable failure (429, 5xx, timeout, dropped
	// connection) persisted through every retry; the last cause is wrapped
	// too, so errors.As finds the *openai.APIError when there is one.
	ErrRetriesExhausted = errors.New("embed: retries exhausted")
	// ErrConfig: OpenAIConfig is invalid.
	ErrConfig = errors.New("embed: invalid config")
	// ErrPanic: a panic inside the embedder (e.g. in a CountTokens hook) was
	// recovered; it never crosses the package boundary.
	ErrPanic = errors.New("embed: recovered panic")
)

// OpenAIDefaultBaseURL is used when OpenAIConfig.BaseURL is empty.
const OpenAIDefaultBaseURL = "https://api.openai.com/v1"

// OpenAIDefaultModel is used when OpenAIConfig.Model is empty.
const OpenAIDefaultModel = "text-embedding-3-small"

// OpenAIConfig configures NewOpenAI. Zero values mean the documented
// defaults.
type OpenAIConfig struct {
	APIKey  string // required for api.openai.com, optional elsewhere
	BaseURL string // "" = OpenAIDefaultBaseURL; e.g. http://localhost:11434/v1 for Ollama
	Model   string // "" = OpenAIDefaultModel
	// Dimensions asks the model to shorten its vectors (text-embedding-3-*);
	// 0 = the model's default, learned by the probe.
	Dimensions int

	MaxBatchInputs int // inputs per request; default 2048 (OpenAI's limit), 64 for other servers
	MaxBatchTokens int // estimated tokens per request; default 300_000
	// MaxInputTokens bounds one input; longer texts are split into pieces
	// that are embedded separately and averaged. Default 8191.
	MaxInputTokens int
	Concurrency    int // requests in flight per embedder; default 4

	// MaxRetries is the number of retries after the first attempt of a
	// batch; 0 = default 6, negative = none.
	MaxRetries     int
	Timeout        time.Duration // per HTTP attempt; default 60s, 120s for other servers
	QueryTimeout   time.Duration // per EmbedQuery attempt; default 15s
	RetryBaseDelay time.Duration // first backoff; default 500ms
	RetryMaxDelay  time.Duration // backoff cap; default 30s

	// CountTokens estimates tokens; nil = a conservative built-in estimate
	// that overcounts English by about 2x.
	CountTokens func(string) int
	HTTPClient  *http.Client // nil = a client with a pooled transport
	Logger      *slog.Logger // nil = slog.Default()
	// QueryCacheSize is the number of query vectors kept; 0 = 512,
	// negative = no cache.
	QueryCacheSize int
	// EncodingFormat is "float" or "base64" (little-endian float32s, a third
	// of the bytes and much cheaper to decode); "" = base64 for
	// api.openai.com, float elsewhere, since not every compatible server
	// (older Ollama) honours it.
	EncodingFormat string
	// SkipProbe makes NewOpenAI skip its network check; dimensions are then
	// learned from the first answer (or taken from Dimensions).
	SkipProbe bool
}

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

// OpenAI embeds through the OpenAI embeddings API or any server speaking it
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
//     server's tokenizer; the built-in estimate overcounts on purpose.
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
type OpenAI struct {
	cfg     OpenAIConfig
	baseURL string // sanitized, for Identity and messages
	client  *openai.Client
	sem     chan struct{}
	count   func(string) int
	log     *slog.Logger
	cache   *openaiLRU
	dims    atomic.Int64

	requests, retries, inputs, estTokens, repTokens, cacheHits atomic.Int64
	warnIndexOnce                                              sync.Once
}

var _ Embedder = (*OpenAI)(nil)

// NewOpenAI checks cfg and, unless cfg.SkipProbe, embeds one short string to
// learn the dimensions and prove the server is reachable, so a bad key, URL
// or model fails here rather than on the first query. Errors wrap ErrConfig,
// ErrMissingAPIKey, or those of Probe.
func NewOpenAI(ctx context.Context, cfg OpenAIConfig) (*OpenAI, error) {
	o, err := newOpenAI(cfg)
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

func newOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	cfg, base, err := openaiDefaults(cfg)
	if err != nil {
		return nil, err
	}
	clean, query, err := openaiSanitizeURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	wire := openai.DefaultConfig(cfg.APIKey)
	wire.BaseURL = base
	wire.HTTPClient = &openaiDoer{client: cfg.HTTPClient, query: query}
	o := &OpenAI{
		cfg:     cfg,
		baseURL: clean,
		client:  openai.NewClientWithConfig(wire),
		sem:     make(chan struct{}, cfg.Concurrency),
		count:   cfg.CountTokens,
		log:     cfg.Logger,
		cache:   newOpenaiLRU(cfg.QueryCacheSize),
	}
	o.dims.Store(int64(cfg.Dimensions))
	return o, nil
}

// Identity returns provider "openai", the model, the dimensions (0 until
// the probe or first answer when SkipProbe was set) and the base URL
// without userinfo or query. Safe for concurrent use.
func (o *OpenAI) Identity() Identity {
	return Identity{Provider: "openai", Model: o.cfg.Model, Dimensions: int(o.dims.Load()), BaseURL: o.baseURL}
}

// Usage returns a snapshot of the counters. Safe for concurrent use.
func (o *OpenAI) Usage() Usage {
	return Usage{
		Requests: o.requests.Load(), Retries: o.retries.Load(), Inputs: o.inputs.Load(),
		EstimatedTokens: o.estTokens.Load(), ReportedTokens: o.repTokens.Load(), CacheHits: o.cacheHits.Load(),
	}
}

// Probe embeds one short string (one retry, Timeout per attempt) to check
// that the server is reachable, the key and model are accepted and the
// vectors have the expected dimensions; it learns the dimensions when none
// were configured. Errors name the base URL and model and wrap the cause
// (ErrBadVector on a dimension mismatch, *openai.APIError on HTTP errors).
func (o *OpenAI) Probe(ctx context.Context) error {
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
// (*openai.APIError) or ctx's error. Safe for concurrent use.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
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
func (o *OpenAI) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	if v, ok := o.cache.get(query); ok {
		o.cacheHits.Add(1)
		return v, nil
	}
	vecs, err := o.embedWith(ctx, []string{query}, min(o.cfg.MaxRetries, 1), o.cfg.QueryTimeout)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	o.cache.put(query, vecs[0])
	return vecs[0], nil
}

func (o *OpenAI) embedWith(ctx context.Context, texts []string, retries int, timeout time.Duration) (_ [][]float32, err error) {
	defer openaiRecover(&err)
	if len(texts) == 0 {
		return nil, nil
	}
	pieces := openaiPieces(texts, o.cfg.MaxInputTokens, o.count)
	batches := openaiPlan(pieces, o.cfg.MaxBatchInputs, o.cfg.MaxBatchTokens)
	vecs := make([][]float32, len(pieces))
	if err := o.runBatches(ctx, pieces, batches, vecs, retries, timeout); err != nil {
		return nil, err
	}
	return openaiCombine(pieces, vecs, len(texts)), nil
}

// runBatches embeds every batch with at most Concurrency workers; the first
// failure cancels the rest.
func (o *OpenAI) runBatches(ctx context.Context, pieces []openaiPiece, batches [][2]int, vecs [][]float32, retries int, timeout time.Duration) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan [2]int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range min(o.cfg.Concurrency, len(batches)) {
		wg.Go(func() {
			for b := range jobs {
				err := o.safeBatch(ctx, pieces[b[0]:b[1]], vecs[b[0]:b[1]], retries, timeout)
				if err == nil {
					continue
				}
				err = fmt.Errorf("batch of %d inputs (texts %d..%d): %w", b[1]-b[0], pieces[b[0]].owner, pieces[b[1]-1].owner, err)
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel(err)
			}
		})
	}
feed:
	for _, b := range batches {
		select {
		case jobs <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return context.Cause(ctx)
}

// safeBatch is embedBatch with a panic (from a CountTokens hook or the
// HTTP stack) turned into an error, since it runs on its own goroutine.
func (o *OpenAI) safeBatch(ctx context.Context, pieces []openaiPiece, out [][]float32, retries int, timeout time.Duration) (err error) {
	defer openaiRecover(&err)
	return o.embedBatch(ctx, pieces, out, retries, timeout)
}

// openaiRecover turns a panic into an error wrapping ErrPanic.
func openaiRecover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrPanic, r)
	}
}

// embedBatch fills out (aligned with pieces), retrying failed attempts and
// re-sending only the inputs a partial answer left out.
func (o *OpenAI) embedBatch(ctx context.Context, pieces []openaiPiece, out [][]float32, retries int, timeout time.Duration) error {
	pending := make([]int, len(pieces))
	for i := range pending {
		pending[i] = i
	}
	for attempt := 0; ; attempt++ {
		got, ae := o.attempt(ctx, pieces, pending, timeout)
		if ae == nil {
			left := openaiFill(out, pending, got)
			if len(left) == 0 {
				return nil
			}
			if len(left) < len(pending) {
				// Progress (a server that caps its batch size, say): ask for
				// the rest at once, without spending a retry.
				o.log.Debug("partial embeddings answer, requesting the rest", "answered", len(pending)-len(left), "left", len(left))
				pending = left
				attempt--
				continue
			}
			ae = &openaiAttemptError{retry: true,
				err: fmt.Errorf("%w: server answered none of %d inputs", ErrBadResponse, len(pending))}
		}
		if !ae.retry {
			return ae.err
		}
		if attempt >= retries {
			return fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt+1, ae.err)
		}
		if ae.retryAfter > openaiMaxRetryAfter {
			return fmt.Errorf("server asks to retry after %s: %w", ae.retryAfter.Round(time.Second), ae.err)
		}
		wait := openaiBackoff(attempt, o.cfg.RetryBaseDelay, o.cfg.RetryMaxDelay, ae.retryAfter)
		o.log.Warn("embeddings request failed, retrying", "url", o.baseURL, "attempt", attempt+1,
			"inputs", len(pending), "wait", wait, "err", ae.err)
		if err := openaiSleep(ctx, wait); err != nil {
			return err
		}
		o.retries.Add(1)
	}
}

// openaiFill stores answered vectors and returns the still-pending indices.
func openaiFill(out [][]float32, pending []int, got [][]float32) []int {
	var left []int
	for k, i := range pending {
		if got[k] == nil {
			left = append(left, i)
			continue
		}
		out[i] = got[k]
	}
	return left
}

// attempt sends pieces[pending] once. It returns vectors aligned with
// pending, nil where the server left an input out.
func (o *OpenAI) attempt(ctx context.Context, pieces []openaiPiece, pending []int, timeout time.Duration) ([][]float32, *openaiAttemptError) {
	inputs := make([]string, len(pending))
	tokens := 0
	for k, i := range pending {
		inputs[k] = pieces[i].text
		tokens += pieces[i].tokens
	}
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, &openaiAttemptError{err: context.Cause(ctx)}
	}
	defer func() { <-o.sem }()
	o.requests.Add(1)
	o.inputs.Add(int64(len(inputs)))
	o.estTokens.Add(int64(tokens))

	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rep := &openaiReply{}
	req := openai.EmbeddingRequest{Input: inputs, Model: openai.EmbeddingModel(o.cfg.Model), Dimensions: o.cfg.Dimensions}
	if o.cfg.EncodingFormat == "base64" {
		// "float" is the default and is left out: some servers reject the field.
		req.EncodingFormat = openai.EmbeddingEncodingFormatBase64
	}
	resp, err := o.client.CreateEmbeddings(context.WithValue(actx, openaiReplyKey{}, rep), req)
	if err != nil {
		ae := openaiClassify(ctx, actx, rep, err)
		return nil, &ae
	}
	o.repTokens.Add(int64(max(resp.Usage.PromptTokens, resp.Usage.TotalTokens)))
	got, err := o.place(resp.Data, len(inputs))
	if err != nil {
		return nil, &openaiAttemptError{err: err}
	}
	return got, nil
}

// place orders the answer by its index field (servers may answer out of
// order, or leave inputs out) and validates each vector. A server that
// numbers every item 0 (seen in some compatible servers) but answers all
// inputs is read positionally.
func (o *OpenAI) place(data []openai.Embedding, n int) ([][]float32, error) {
	if len(data) > n {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrBadResponse, len(data), n)
	}
	positional := n > 1 && len(data) == n
	for _, d := range data {
		positional = positional && d.Index == 0
	}
	if positional {
		o.warnIndexOnce.Do(func() {
			o.log.Warn("embeddings server numbers every item 0; using answer order", "url", o.baseURL)
		})
	}
	got := make([][]float32, n)
	for k, d := range data {
		i := d.Index
		if positional {
			i = k
		}
		if i < 0 || i >= n || got[i] != nil {
			return nil, fmt.Errorf("%w: embedding index %d out of range or repeated (%d inputs)", ErrBadResponse, d.Index, n)
		}
		if err := o.check(d.Embedding); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		got[i] = d.Embedding
	}
	return got, nil
}

// check validates one vector, learning the dimensions from the first one
// when they are not yet known.
func (o *OpenAI) check(v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: empty vector", ErrBadVector)
	}
	o.dims.CompareAndSwap(0, int64(len(v)))
	if want := int(o.dims.Load()); len(v) != want {
		return fmt.Errorf("%w: %d dimensions, want %d (model %q)", ErrBadVector, len(v), want, o.cfg.Model)
	}
	zero := true
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: non-finite value at %d", ErrBadVector, j)
		}
		zero = zero && x == 0
	}
	if zero {
		return fmt.Errorf("%w: all zeros", ErrBadVector)
	}
	return nil
}
