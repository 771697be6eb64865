package ollama

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// DefaultModel is used when Config.Model is empty: the most pulled
// embedding model in Ollama's library.
const DefaultModel = "nomic-embed-text"

// Errors returned (wrapped) by the Ollama embedder, besides
// embed.ErrBadVector and embed.ErrPanic.
var (
	// ErrNotRunning: nothing answered at the address (connection refused,
	// unknown host, no answer within the timeout).
	ErrNotRunning = errors.New("ollama is not running")
	// ErrModelMissing: the model is not pulled into that Ollama.
	ErrModelMissing = errors.New("ollama model missing")
	// ErrNotOllama: the server at the address does not speak Ollama's
	// native API (GET /api/tags or POST /api/embed is not there).
	ErrNotOllama = errors.New("not an ollama server")
	// ErrBadResponse: a 2xx answer that is not a usable embeddings list
	// (malformed or oversized JSON, a wrong number of vectors).
	ErrBadResponse = errors.New("embed: bad response from ollama")
	// ErrRetriesExhausted: a retryable failure (5xx, refused or dropped
	// connection, timeout) persisted through every retry; the last cause is
	// wrapped too.
	ErrRetriesExhausted = errors.New("embed: retries exhausted")
	// ErrConfig: Config (or an address given to BaseURL) is invalid.
	ErrConfig = errors.New("embed: invalid ollama config")
)

// Config configures New. Zero values mean the documented defaults.
type Config struct {
	BaseURL string // Ollama's address in any form BaseURL takes; "" = DefaultBaseURL
	Model   string // "" = DefaultModel; "name" and "name:latest" are the same model
	// Dimensions asks for shortened vectors ("dimensions": newer Ollama,
	// models trained for it); 0 = the model's own, learned by the probe.
	Dimensions int
	// KeepAlive is sent as "keep_alive" (how long Ollama keeps the model
	// loaded after a request, e.g. "30m"); "" leaves the server's default.
	KeepAlive string

	MaxBatchInputs int // inputs per request; default 64
	Concurrency    int // requests in flight per embedder; default 2
	// MaxRetries is the number of retries after the first attempt of a
	// batch; 0 = default 4, negative = none.
	MaxRetries int
	// Timeout bounds one attempt of a batch or of the probe; default 120s
	// (the first request loads the model, which takes seconds on a CPU).
	Timeout        time.Duration
	QueryTimeout   time.Duration // per EmbedQuery and /api/tags attempt; default 30s
	RetryBaseDelay time.Duration // first backoff; default 250ms
	RetryMaxDelay  time.Duration // backoff cap; default 10s

	// QueryCacheSize is the number of query vectors kept; 0 = 512,
	// negative = no cache.
	QueryCacheSize int

	HTTPClient *http.Client // nil = a client with a pooled transport
	Logger     *slog.Logger // nil = slog.Default()
	// SkipProbe makes New skip the model check and the probe; dimensions
	// are then learned from the first answer (or taken from Dimensions).
	SkipProbe bool
}

// defaults fills in defaults and validates, normalising the base URL.
// Errors wrap ErrConfig.
func defaults(c Config) (Config, error) {
	base, err := BaseURL(c.BaseURL)
	if err != nil {
		return c, err
	}
	c.BaseURL = base
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Dimensions < 0 || c.MaxBatchInputs < 0 || c.Concurrency < 0 {
		return c, fmt.Errorf("%w: negative dimensions, batch or concurrency", ErrConfig)
	}
	setDefault(&c.MaxBatchInputs, 64)
	setDefault(&c.Concurrency, 2)
	setDefault(&c.MaxRetries, 4)
	setDefault(&c.QueryCacheSize, 512)
	c.MaxRetries = max(c.MaxRetries, 0)
	setDefault(&c.Timeout, 120*time.Second)
	setDefault(&c.QueryTimeout, 30*time.Second)
	setDefault(&c.RetryBaseDelay, 250*time.Millisecond)
	setDefault(&c.RetryMaxDelay, 10*time.Second)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(c.Concurrency, 2)
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c, nil
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}
