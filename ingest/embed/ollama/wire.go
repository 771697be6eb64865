package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/internal/backoff"
)

// The shapes of Ollama's native API (docs/api.md of ollama/ollama,
// "Generate Embeddings" and "List Local Models"; testdata/README.md).
type (
	embedRequest struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Truncate   bool     `json:"truncate"`
		Dimensions int      `json:"dimensions,omitempty"`
		KeepAlive  string   `json:"keep_alive,omitempty"`
	}
	embedResponse struct {
		Model           string      `json:"model"`
		Embeddings      [][]float32 `json:"embeddings"`
		TotalDuration   int64       `json:"total_duration"`
		LoadDuration    int64       `json:"load_duration"`
		PromptEvalCount int64       `json:"prompt_eval_count"`
	}
	tagsResponse struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	errorResponse struct {
		Error string `json:"error"`
	}
)

// maxErrorBody bounds what is read of an error answer, and maxTagsBody of
// the model list (a few hundred bytes a model).
const (
	maxErrorBody = 64 << 10
	maxTagsBody  = 4 << 20
)

// attemptError is the outcome of one failed attempt.
type attemptError struct {
	err   error
	retry bool
}

// call sends one request (GET when body is nil) to path, retrying
// retryable failures up to retries times with backoff (then the error
// wraps ErrRetriesExhausted), and decodes the 2xx answer, read up to limit
// bytes, into out.
func (o *Embedder) call(ctx context.Context, path string, body []byte, limit int64, retries int, timeout time.Duration, out any) error {
	for attempt := 0; ; attempt++ {
		ae := o.once(ctx, path, body, limit, timeout, out)
		if ae == nil {
			return nil
		}
		if !ae.retry || retries == 0 {
			return ae.err
		}
		if attempt >= retries {
			return fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt+1, ae.err)
		}
		wait := backoff.Delay(attempt, o.cfg.RetryBaseDelay, o.cfg.RetryMaxDelay, 0)
		o.log.Warn("ollama request failed, retrying", "url", o.cfg.BaseURL+path, "attempt", attempt+1, "wait", wait, "err", ae.err)
		if err := backoff.Sleep(ctx, wait); err != nil {
			return err
		}
		o.retries.Add(1)
	}
}

// once is one attempt: at most Concurrency across callers, timeout long.
func (o *Embedder) once(ctx context.Context, path string, body []byte, limit int64, timeout time.Duration, out any) *attemptError {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return &attemptError{err: context.Cause(ctx)}
	}
	defer func() { <-o.sem }()
	o.requests.Add(1)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := o.send(actx, path, body)
	if err != nil {
		return o.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return o.statusError(path, resp.StatusCode, raw)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return o.transportError(ctx, actx, fmt.Errorf("read answer: %w", err))
	case int64(len(raw)) > limit:
		return &attemptError{err: fmt.Errorf("%w: answer over %d bytes", ErrBadResponse, limit)}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		// A truncated or garbled answer: worth one more try.
		return &attemptError{err: fmt.Errorf("%w: %w", ErrBadResponse, err), retry: true}
	}
	return nil
}

func (o *Embedder) send(ctx context.Context, path string, body []byte) (*http.Response, error) {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, o.cfg.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return o.cfg.HTTPClient.Do(req)
}

// transportError classifies a failure without an HTTP status: the caller's
// context ending is final; a refused or unresolvable address
// (ErrNotRunning), a timed-out attempt or a dropped connection may be
// retried.
func (o *Embedder) transportError(parent, attempt context.Context, err error) *attemptError {
	if parent.Err() != nil {
		return &attemptError{err: context.Cause(parent)}
	}
	if errors.Is(attempt.Err(), context.DeadlineExceeded) {
		return &attemptError{retry: true, err: fmt.Errorf("ollama at %s: no answer within the timeout: %w", o.cfg.BaseURL, err)}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &attemptError{retry: true, err: fmt.Errorf("%w at %s (start it with `ollama serve`, or set OLLAMA_HOST to the address it listens on): %w",
			ErrNotRunning, o.cfg.BaseURL, err)}
	}
	return &attemptError{retry: true, err: fmt.Errorf("ollama at %s: connection lost: %w", o.cfg.BaseURL, err)}
}

// statusError turns a non-2xx answer into an error with a hint a user can
// act on; 408, 429 and 5xx may be retried.
func (o *Embedder) statusError(path string, status int, raw []byte) *attemptError {
	var er errorResponse
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &er) == nil && er.Error != "" {
		msg = er.Error
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	switch {
	case status == http.StatusNotFound && strings.Contains(msg, "model"):
		return &attemptError{err: o.missing(msg)}
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return &attemptError{err: fmt.Errorf("%w: %s has no %s (http %d: %s); is it Ollama, and 0.3 or later? For an OpenAI-compatible server use --embedder openai",
			ErrNotOllama, o.cfg.BaseURL, path, status, msg)}
	}
	err := fmt.Errorf("ollama at %s: %s: http %d: %s", o.cfg.BaseURL, path, status, msg)
	retry := status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
	return &attemptError{err: err, retry: retry}
}

// missing is ErrModelMissing with the command that fixes it.
func (o *Embedder) missing(detail string) error {
	return fmt.Errorf("%w: %q is not pulled into the Ollama at %s (%s); run: ollama pull %s",
		ErrModelMissing, o.cfg.Model, o.cfg.BaseURL, detail, o.cfg.Model)
}
