package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// maxRetryAfter is the longest Retry-After the embedder will sleep
// through; a server asking for more (a daily quota, say) fails the call.
const maxRetryAfter = 5 * time.Minute

// reply is what the transport saw of one HTTP exchange; go-openai's
// errors do not carry response headers, so the transport records them.
type reply struct {
	status     int
	retryAfter time.Duration
}

type replyKey struct{}

// doer wraps the user's HTTP client: it re-adds query parameters of
// the base URL (go-openai appends the path to the base as a string, which
// would put them in the wrong place) and records status and Retry-After.
type doer struct {
	client *http.Client
	query  url.Values
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	if len(d.query) > 0 {
		q := req.URL.Query()
		for k, vs := range d.query {
			for _, v := range vs {
				q.Add(k, v)
			}
		}
		req.URL.RawQuery = q.Encode()
	}
	resp, err := d.client.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		// The query may hold a key (?api-key=); keep it out of errors and logs.
		ue.URL = redact(ue.URL)
	}
	if rep, ok := req.Context().Value(replyKey{}).(*reply); ok && resp != nil {
		rep.status = resp.StatusCode
		rep.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	return resp, err
}

// parseRetryAfter reads retry-after-ms (Azure, OpenAI) or Retry-After
// in seconds or as an HTTP date. It returns 0 when absent or unparseable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	ra := strings.TrimSpace(h.Get("Retry-After"))
	if ra == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(ra, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(ra); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// attemptError is the outcome of one failed attempt.
type attemptError struct {
	err        error
	retry      bool
	retryAfter time.Duration
}

// classify decides whether a failed attempt may be retried.
func (o *Embedder) classify(parent, attempt context.Context, rep *reply, err error) attemptError {
	switch {
	case parent.Err() != nil:
		return attemptError{err: context.Cause(parent)}
	case errors.Is(attempt.Err(), context.DeadlineExceeded):
		return attemptError{err: fmt.Errorf("request timed out: %w", err), retry: true}
	}
	if rep.status == 0 {
		var ne net.Error
		if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || isConnErr(err) {
			return attemptError{err: fmt.Errorf("connect: %w", err), retry: true}
		}
		return attemptError{err: err}
	}
	if rep.status >= 200 && rep.status < 300 {
		// The body did not decode: a truncated or garbled answer.
		return attemptError{err: fmt.Errorf("decode response: %w: %w", ErrBadResponse, err), retry: true}
	}
	ae := attemptError{err: statusError(rep.status, o.cfg.APIKeyName, err), retryAfter: rep.retryAfter}
	switch {
	case rep.status == http.StatusTooManyRequests:
		ae.retry = !isQuota(err)
	case rep.status == http.StatusRequestTimeout, rep.status == http.StatusConflict, rep.status >= 500:
		ae.retry = true
	}
	return ae
}

func isConnErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "EOF") ||
		strings.Contains(s, "connection refused") || strings.Contains(s, "broken pipe")
}

// isQuota reports OpenAI's "insufficient_quota" 429, which no amount
// of waiting fixes.
func isQuota(err error) bool {
	var ae *goopenai.APIError
	if !errors.As(err, &ae) {
		return false
	}
	code, _ := ae.Code.(string)
	return code == "insufficient_quota" || ae.Type == "insufficient_quota"
}

// statusError adds a hint a user can act on to a non-2xx answer.
func statusError(status int, keyName string, err error) error {
	hint := ""
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check " + keyName + ")"
	case http.StatusNotFound:
		hint = " (check the model name and that the base URL ends in /v1)"
	}
	return fmt.Errorf("http %d%s: %w", status, hint, err)
}
