package embed

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// openaiDefaults fills in defaults and validates; it returns the base URL
// to hand go-openai (without query, which openaiDoer re-adds).
func openaiDefaults(c OpenAIConfig) (OpenAIConfig, string, error) {
	if c.BaseURL == "" {
		c.BaseURL = OpenAIDefaultBaseURL
	}
	if c.Model == "" {
		c.Model = OpenAIDefaultModel
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
		c.CountTokens = openaiEstimateTokens
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(c.Concurrency, 2)
		c.HTTPClient = &http.Client{Transport: t}
	}
	switch {
	case c.Dimensions < 0:
		return c, "", fmt.Errorf("%w: negative dimensions %d", ErrConfig, c.Dimensions)
	case c.MaxBatchInputs < 0, c.MaxBatchTokens < 0, c.MaxInputTokens < 0, c.Concurrency < 0:
		return c, "", fmt.Errorf("%w: negative batch or concurrency limit", ErrConfig)
	case c.MaxInputTokens > c.MaxBatchTokens:
		return c, "", fmt.Errorf("%w: max input tokens %d over max batch tokens %d", ErrConfig, c.MaxInputTokens, c.MaxBatchTokens)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, "", fmt.Errorf("%w: base url must be http(s)://host[/path], got %q", ErrConfig, openaiRedact(c.BaseURL))
	}
	isOpenAI := strings.EqualFold(u.Hostname(), "api.openai.com")
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
		return c, "", ErrMissingAPIKey
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

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// openaiSanitizeURL returns raw without userinfo, query or fragment (any
// of which may hold a secret), and the query to send with each request.
func openaiSanitizeURL(raw string) (string, url.Values, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%w: parse base url: %w", ErrConfig, err)
	}
	q := u.Query()
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return strings.TrimRight(u.String(), "/"), q, nil
}

// openaiRedact is for error messages about URLs that may not even parse.
func openaiRedact(raw string) string {
	if s, _, err := openaiSanitizeURL(raw); err == nil {
		return s
	}
	return "(unparseable url)"
}
