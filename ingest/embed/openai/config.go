package openai

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultModel is used when Config.Model is empty.
const DefaultModel = "text-embedding-3-small"

// Config configures New. Zero values mean the documented defaults.
type Config struct {
	APIKey string // required for api.openai.com, optional elsewhere
	// APIKeyName says where a user sets the key (cmd/mcpvec passes
	// "OPENAI_API_KEY"); error hints name it. "" = "the API key".
	APIKeyName string
	BaseURL    string // "" = DefaultBaseURL; e.g. http://localhost:11434/v1 for Ollama
	Model      string // "" = DefaultModel
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

	// CountTokens estimates tokens; nil = analysis.EstimateTokens, the
	// estimate the chunker sizes passages with (it errs high).
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
	// SkipProbe makes New skip its network check; dimensions are then
	// learned from the first answer (or taken from Dimensions).
	SkipProbe bool
}

// defaults fills in defaults and validates; it returns the base URL
// to hand go-openai (without query, which doer re-adds). Errors wrap
// ErrConfig or ErrMissingAPIKey.
func defaults(c Config) (Config, string, error) {
	c = commonDefaults(c)
	if err := checkLimits(c); err != nil {
		return c, "", err
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, "", fmt.Errorf("%w: base url must be http(s)://host[/path], got %q", ErrConfig, redact(c.BaseURL))
	}
	isOpenAI := officialHost(c.BaseURL)
	if isOpenAI {
		setDefault(&c.MaxBatchInputs, 2048)
		setDefault(&c.Timeout, 60*time.Second)
	} else {
		// Local servers (Ollama on a CPU) take seconds per input: a
		// 2048-input request would time out and be redone from scratch.
		setDefault(&c.MaxBatchInputs, 64)
		setDefault(&c.Timeout, 120*time.Second)
	}
	if c.APIKey == "" && isOpenAI {
		return c, "", fmt.Errorf("%w (set %s)", ErrMissingAPIKey, c.APIKeyName)
	}
	switch c.EncodingFormat {
	case "":
		c.EncodingFormat = "float"
		if isOpenAI {
			c.EncodingFormat = "base64"
		}
	case "float", "base64":
	default:
		return c, "", fmt.Errorf("%w: encoding format %q (want float or base64)", ErrConfig, c.EncodingFormat)
	}
	u.RawQuery, u.Fragment = "", ""
	return c, strings.TrimRight(u.String(), "/"), nil
}

// commonDefaults fills in the defaults that do not depend on the server.
func commonDefaults(c Config) Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.APIKeyName == "" {
		c.APIKeyName = "the API key"
	}
	setDefault(&c.MaxBatchTokens, 300_000)
	setDefault(&c.MaxInputTokens, 8191)
	setDefault(&c.Concurrency, 4)
	setDefault(&c.MaxRetries, 6)
	setDefault(&c.QueryCacheSize, 512)
	setDefault(&c.QueryTimeout, 15*time.Second)
	setDefault(&c.RetryBaseDelay, 500*time.Millisecond)
	setDefault(&c.RetryMaxDelay, 30*time.Second)
	c.MaxRetries = max(c.MaxRetries, 0)
	if c.CountTokens == nil {
		c.CountTokens = analysis.EstimateTokens
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(c.Concurrency, 2)
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c
}

// checkLimits rejects negative and contradictory limits (ErrConfig).
func checkLimits(c Config) error {
	switch {
	case c.Dimensions < 0:
		return fmt.Errorf("%w: negative dimensions %d", ErrConfig, c.Dimensions)
	case c.MaxBatchInputs < 0, c.MaxBatchTokens < 0, c.MaxInputTokens < 0, c.Concurrency < 0:
		return fmt.Errorf("%w: negative batch or concurrency limit", ErrConfig)
	case c.MaxInputTokens > c.MaxBatchTokens:
		return fmt.Errorf("%w: max input tokens %d over max batch tokens %d", ErrConfig, c.MaxInputTokens, c.MaxBatchTokens)
	}
	return nil
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// sanitizeURL returns raw without userinfo, query or fragment (any
// of which may hold a secret), and the query to send with each request.
func sanitizeURL(raw string) (string, url.Values, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%w: parse base url: %w", ErrConfig, err)
	}
	q := u.Query()
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return strings.TrimRight(u.String(), "/"), q, nil
}

// redact is for error messages about URLs that may not even parse.
func redact(raw string) string {
	if s, _, err := sanitizeURL(raw); err == nil {
		return s
	}
	return "(unparseable url)"
}
