package openai

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

func TestOpenAIRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		wait          time.Duration
	}{
		{"Retry-After", "1", time.Second},
		{"Retry-After-Ms", "300", 300 * time.Millisecond},
	} {
		t.Run(tc.header, func(t *testing.T) {
			f := newFake(t, openaitest.OpenAI, 8)
			f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
				if n != 0 {
					return false
				}
				w.Header().Set(tc.header, tc.value)
				openaitest.WriteError(w, http.StatusTooManyRequests, "requests", "Rate limit reached for requests")
				return true
			})
			o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true })
			in := texts(2)
			mustEmbed(t, o, in, 8)
			reqs := f.Requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %d, want 2", len(reqs))
			}
			if gap := reqs[1].At.Sub(reqs[0].At); gap < tc.wait {
				t.Errorf("retried after %v, server asked for %v", gap, tc.wait)
			}
			if u := o.Usage(); u.Retries != 1 || u.Requests != 2 {
				t.Errorf("Usage = %+v, want 1 retry of 2 requests", u)
			}
		})
	}
}

func TestOpenAIRetryAfterTooLongFails(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Retry-After", "86400")
		openaitest.WriteError(w, http.StatusTooManyRequests, "tokens", "Rate limit reached for tokens per day")
		return true
	})
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true })
	start := time.Now()
	_, err := o.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "retry after 24h") {
		t.Fatalf("err = %v, want a clear error naming the wait", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v, should fail fast", time.Since(start))
	}
}

func TestOpenAIServerErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		typ, code string
		failures  int // how many requests fail before success (-1 = all)
		retries   int
		wantReqs  int
		wantErr   error
		wantInErr string
	}{
		{name: "500 then ok", status: 500, typ: "server_error", failures: 2, retries: 3, wantReqs: 3},
		{name: "503 persistent", status: 503, typ: "server_error", failures: -1, retries: 2, wantReqs: 3, wantErr: ErrRetriesExhausted},
		{name: "400 not retried", status: 400, typ: "invalid_request_error", failures: -1, retries: 3, wantReqs: 1, wantInErr: "boom"},
		{name: "401 hint", status: 401, typ: "invalid_request_error", failures: -1, retries: 3, wantReqs: 1, wantInErr: "TEST_KEY_VAR"},
		{name: "404 hint", status: 404, typ: "not_found_error", failures: -1, retries: 3, wantReqs: 1, wantInErr: "model name"},
		{name: "429 quota", status: 429, typ: "insufficient_quota", code: "insufficient_quota", failures: -1, retries: 3, wantReqs: 1, wantInErr: "quota"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, openaitest.OpenAI, 8)
			f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
				if tc.failures >= 0 && n >= tc.failures {
					return false
				}
				msg := "boom: " + tc.typ
				if tc.code != "" {
					msg = "You exceeded your current quota"
				}
				openaitest.WriteError(w, tc.status, tc.typ, msg)
				return true
			})
			o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxRetries = tc.retries })
			_, err := o.Embed(context.Background(), texts(2))
			if got := len(f.Requests()); got != tc.wantReqs {
				t.Errorf("requests = %d, want %d", got, tc.wantReqs)
			}
			if tc.failures >= 0 {
				if err != nil {
					t.Fatalf("err = %v, want success after retries", err)
				}
				return
			}
			if err == nil {
				t.Fatal("err = nil, want an error")
			}
			var ae *goopenai.APIError
			if !errors.As(err, &ae) || ae.HTTPStatusCode != tc.status {
				t.Errorf("err = %v, want an *goopenai.APIError with status %d", err, tc.status)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("err = %v, want it to mention %q", err, tc.wantInErr)
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	hangWhen(f, only(0))
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.Timeout = 100 * time.Millisecond })
	in := texts(2)
	mustEmbed(t, o, in, 8)

	hangWhen(f, always)
	o = newTestOpenAI(t, f.BaseURL(), func(c *Config) {
		c.SkipProbe = true
		c.Timeout = 50 * time.Millisecond
		c.MaxRetries = 1
	})
	_, err := o.Embed(context.Background(), in)
	if !errors.Is(err, ErrRetriesExhausted) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrRetriesExhausted wrapping a deadline", err)
	}
}

func TestOpenAICancel(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	hangWhen(f, always)
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxBatchInputs = 1; c.Timeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := o.Embed(ctx, texts(20))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("returned after %v, want promptly after cancel", d)
	}
	if n := len(f.Requests()); n > 4 {
		t.Errorf("%d requests sent; cancellation should stop new ones (concurrency 4)", n)
	}
}

func TestOpenAIQueryTimeout(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	hangWhen(f, always)
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.QueryTimeout = 50 * time.Millisecond })
	start := time.Now()
	_, err := o.EmbedQuery(context.Background(), "slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 50ms query timeout", d)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	addr := closedAddr(t)
	start := time.Now()
	_, err := New(context.Background(), Config{BaseURL: "http://" + addr + "/v1", Model: "m",
		RetryBaseDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "probe embeddings at http://"+addr) {
		t.Fatalf("err = %v, want a probe error naming the server", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to report an unreachable server", d)
	}
}

func TestOpenAIPanicRecovered(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) {
		c.SkipProbe = true
		c.CountTokens = func(s string) int {
			if strings.Contains(s, "boom") {
				panic("tokenizer exploded")
			}
			return len(s)
		}
	})
	_, err := o.Embed(context.Background(), []string{"fine", "boom"})
	if !errors.Is(err, embed.ErrPanic) || !strings.Contains(err.Error(), "tokenizer exploded") {
		t.Fatalf("err = %v, want embed.ErrPanic", err)
	}
}

func TestOpenAIDroppedConnectionRetried(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
		if n != 0 {
			return false
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // no answer at all
		}
		return true
	})
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true })
	in := texts(3)
	mustEmbed(t, o, in, 8)
	if u := o.Usage(); u.Requests != 2 || u.Retries != 1 {
		t.Errorf("Usage = %+v, want one retry", u)
	}
}

func TestOpenAIParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{http.Header{}, 0},
	} {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("parse(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}
