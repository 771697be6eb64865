package embed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// openaiMaxRetryAfter is the longest Retry-After the embedder will sleep
// through; a server asking for more (a daily quota, say) fails the call.
const openaiMaxRetryAfter = 5 * time.Minute

// openaiReply is what the transport saw of one HTTP exchange; go-openai's
// errors do not carry response headers, so the transport records them.
type openaiReply struct {
	status     int
	retryAfter time.Duration
}

type openaiReplyKey struct{}

// openaiDoer wraps the user's HTTP client: it re-adds query parameters of
// the base URL (go-openai appends the path to the base as a string, which
// would put them in the wrong place) and records status and Retry-After.
type openaiDoer struct {
	client *http.Client
	query  url.Values
}

func (d *openaiDoer) Do(req *http.Request) (*http.Response, error) {
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
		ue.URL = openaiRedact(ue.URL)
	}
	if rep, ok := req.Context().Value(openaiReplyKey{}).(*openaiReply); ok && resp != nil {
		rep.status = resp.StatusCode
		rep.retryAfter = openaiParseRetryAfter(resp.Header, time.Now())
	}
	return resp, err
}

// openaiParseRetryAfter reads retry-after-ms (Azure, OpenAI) or Retry-After
// in seconds or as an HTTP date. It returns 0 when absent or unparseable.
func openaiParseRetryAfter(h http.Header, now time.Time) time.Duration {
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

// openaiAttemptError is the outcome of one failed attempt.
type openaiAttemptError struct {
	err        error
	retry      bool
	retryAfter time.Duration
}

// openaiClassify decides whether a failed attempt may be retried.
func openaiClassify(parent, attempt context.Context, rep *openaiReply, err error) openaiAttemptError {
	switch {
	case parent.Err() != nil:
		return openaiAttemptError{err: context.Cause(parent)}
	case errors.Is(attempt.Err(), context.DeadlineExceeded):
		return openaiAttemptError{err: fmt.Errorf("request timed out: %w", err), retry: true}
	}
	if rep.status == 0 {
		var ne net.Error
		if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || openaiIsConnErr(err) {
			return openaiAttemptError{err: fmt.Errorf("connect: %w", err), retry: true}
		}
		return openaiAttemptError{err: err}
	}
	if rep.status >= 200 && rep.status < 300 {
		// The body did not decode: a truncated or garbled answer.
		return openaiAttemptError{err: fmt.Errorf("decode response: %w: %w", ErrBadResponse, err), retry: true}
	}
	ae := openaiAttemptError{err: openaiStatusError(rep.status, err), retryAfter: rep.retryAfter}
	switch {
	case rep.status == http.StatusTooManyRequests:
		ae.retry = !openaiIsQuota(err)
	case rep.status == http.StatusRequestTimeout, rep.status == http.StatusConflict, rep.status >= 500:
		ae.retry = true
	}
	return ae
}

func openaiIsConnErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "EOF") ||
		strings.Contains(s, "connection refused") || strings.Contains(s, "broken pipe")
}

// openaiIsQuota reports OpenAI's "insufficient_quota" 429, which no amount
// of waiting fixes.
func openaiIsQuota(err error) bool {
	var ae *openai.APIError
	if !errors.As(err, &ae) {
		return false
	}
	code, _ := ae.Code.(string)
	return code == "insufficient_quota" || ae.Type == "insufficient_quota"
}

// openaiStatusError adds a hint a user can act on to a non-2xx answer.
func openaiStatusError(status int, err error) error {
	hint := ""
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check OPENAI_API_KEY)"
	case http.StatusNotFound:
		hint = " (check the model name and that the base URL ends in /v1)"
	}
	return fmt.Errorf("http %d%s: %w", status, hint, err)
}

// openaiBackoff is the wait before retry number n (0-based): exponential
// from base, capped at maxDelay, with "equal jitter" (half fixed, half
// random) so that parallel workers do not retry in lockstep. A Retry-After
// from the server wins when it is longer.
func openaiBackoff(n int, base, maxDelay, retryAfter time.Duration) time.Duration {
	d := base << min(n, 30)
	if d <= 0 || d > maxDelay {
		d = maxDelay
	}
	d = d/2 + rand.N(d/2+1)
	if retryAfter > 0 {
		// Honour it, plus a little jitter so a crowd does not return at once.
		d = max(d, retryAfter+rand.N(retryAfter/10+1))
	}
	return d
}

// openaiSleep waits d or until ctx is done.
func openaiSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
