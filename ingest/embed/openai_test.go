package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// newTestOpenAI builds an embedder against base with fast retries and a
// silent logger; mutate adjusts the config. It probes unless told not to.
func newTestOpenAI(t *testing.T, base string, mutate func(*OpenAIConfig)) *OpenAI {
	t.Helper()
	cfg := OpenAIConfig{
		APIKey: "sk-test", BaseURL: base, Model: "text-embedding-3-small",
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 20 * time.Millisecond,
		Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	o, err := NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return o
}

func openaiTexts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage number %d about something", i)
	}
	return out
}

func openaiAssertVecs(t *testing.T, in []string, got [][]float32, dims int) {
	t.Helper()
	if len(got) != len(in) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(in))
	}
	for i, s := range in {
		if want := openaiFakeVec(s, dims); !slices.Equal(got[i], want) {
			t.Fatalf("vector %d (%q) is not the server's vector for that text", i, s)
		}
	}
}

func TestOpenAIWireOpenAI(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 64)
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.MaxBatchInputs = 3; c.Concurrency = 1 })
	in := openaiTexts(10)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 64)
	reqs := f.requests()
	if got, want := len(reqs), 1+4; got != want { // probe + ceil(10/3)
		t.Fatalf("requests = %d, want %d", got, want)
	}
	for _, r := range reqs {
		if r.Auth != "Bearer sk-test" || r.Model != "text-embedding-3-small" || r.HasEncoding || r.Dimensions != 0 {
			t.Errorf("request = %+v; want bearer key, model, no encoding_format, no dimensions", r)
		}
	}
	if id := o.Identity(); id != (Identity{Provider: "openai", Model: "text-embedding-3-small", Dimensions: 64, BaseURL: f.BaseURL()}) {
		t.Errorf("Identity = %+v", id)
	}
	u := o.Usage()
	if u.Requests != 5 || u.Retries != 0 || u.Inputs != 11 || u.ReportedTokens == 0 || u.Tokens() != u.ReportedTokens {
		t.Errorf("Usage = %+v", u)
	}
}

func TestOpenAIWireOllama(t *testing.T) {
	for _, flavor := range []string{"ollama", "ollama-old"} {
		t.Run(flavor, func(t *testing.T) {
			f := newOpenaiFakeServer(t, flavor, 768)
			o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.APIKey = ""; c.Model = "nomic-embed-text" })
			in := openaiTexts(5)
			got, err := o.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			openaiAssertVecs(t, in, got, 768)
			for _, r := range f.requests() {
				if r.Auth != "" || r.Model != "nomic-embed-text" {
					t.Errorf("request auth=%q model=%q; want no auth header and the model", r.Auth, r.Model)
				}
			}
			u := o.Usage()
			if flavor == "ollama-old" && (u.ReportedTokens != 0 || u.Tokens() != u.EstimatedTokens || u.Tokens() == 0) {
				t.Errorf("no usage from server: Usage = %+v, want the estimate", u)
			}
			if flavor == "ollama" && u.ReportedTokens == 0 {
				t.Errorf("Usage = %+v, want reported tokens", u)
			}
			if d := o.Identity().Dimensions; d != 768 {
				t.Errorf("dimensions = %d, want 768 learned by probe", d)
			}
		})
	}
}

func TestOpenAIOutOfOrderIndex(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 16)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		items := f.embeddings(req)
		slices.Reverse(items)
		f.answer(w, req, items)
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := openaiTexts(7)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 16)
}

func TestOpenAIPartialBatchResent(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 16)
	// Answer only the even-numbered inputs of the first Embed request.
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		if n != 1 {
			return false
		}
		var items []openaiFakeItem
		for _, it := range f.embeddings(req) {
			if it.Index%2 == 0 {
				items = append(items, it)
			}
		}
		f.answer(w, req, items)
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := openaiTexts(6)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 16)
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want probe + partial + rest", len(reqs))
	}
	if want := []string{in[1], in[3], in[5]}; !slices.Equal(reqs[2].Input, want) {
		t.Errorf("re-sent %q, want only the missing %q", reqs[2].Input, want)
	}
}

func TestOpenAIEmptyAnswerExhaustsRetries(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 16)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		f.answer(w, req, nil)
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxRetries = 2 })
	_, err := o.Embed(context.Background(), openaiTexts(3))
	if !errors.Is(err, ErrRetriesExhausted) || !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrRetriesExhausted and ErrBadResponse", err)
	}
	if got := len(f.requests()); got != 3 {
		t.Errorf("requests = %d, want 1 + 2 retries", got)
	}
}

func TestOpenAIBadIndex(t *testing.T) {
	for name, mangle := range map[string]func([]openaiFakeItem) []openaiFakeItem{
		"duplicate":    func(it []openaiFakeItem) []openaiFakeItem { it[1].Index = 2; return it },
		"out of range": func(it []openaiFakeItem) []openaiFakeItem { it[0].Index = 99; return it },
		"too many":     func(it []openaiFakeItem) []openaiFakeItem { return append(it, it[0]) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newOpenaiFakeServer(t, "openai", 8)
			f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
				f.answer(w, req, mangle(f.embeddings(req)))
				return true
			}
			o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true })
			_, err := o.Embed(context.Background(), openaiTexts(3))
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("err = %v, want ErrBadResponse", err)
			}
			if got := len(f.requests()); got != 1 {
				t.Errorf("requests = %d; a malformed index is not retried", got)
			}
		})
	}
}

func TestOpenAIAllZeroIndexReadPositionally(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		items := f.embeddings(req)
		for i := range items {
			items[i].Index = 0
		}
		f.answer(w, req, items)
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := openaiTexts(4)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 8)
}

func TestOpenAIRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		wait          time.Duration
	}{
		{"Retry-After", "1", time.Second},
		{"Retry-After-Ms", "300", 300 * time.Millisecond},
	} {
		t.Run(tc.header, func(t *testing.T) {
			f := newOpenaiFakeServer(t, "openai", 8)
			f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
				if n != 0 {
					return false
				}
				w.Header().Set(tc.header, tc.value)
				openaiFakeError(w, http.StatusTooManyRequests, "requests", "Rate limit reached for requests")
				return true
			}
			o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true })
			in := openaiTexts(2)
			got, err := o.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			openaiAssertVecs(t, in, got, 8)
			reqs := f.requests()
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
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Retry-After", "86400")
		openaiFakeError(w, http.StatusTooManyRequests, "tokens", "Rate limit reached for tokens per day")
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true })
	start := time.Now()
	_, err := o.Embed(context.Background(), openaiTexts(1))
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
		{name: "401 hint", status: 401, typ: "invalid_request_error", failures: -1, retries: 3, wantReqs: 1, wantInErr: "OPENAI_API_KEY"},
		{name: "404 hint", status: 404, typ: "not_found_error", failures: -1, retries: 3, wantReqs: 1, wantInErr: "model name"},
		{name: "429 quota", status: 429, typ: "insufficient_quota", code: "insufficient_quota", failures: -1, retries: 3, wantReqs: 1, wantInErr: "quota"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOpenaiFakeServer(t, "openai", 8)
			f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
				if tc.failures >= 0 && n >= tc.failures {
					return false
				}
				msg := "boom: " + tc.typ
				if tc.code != "" {
					msg = "You exceeded your current quota"
				}
				openaiFakeError(w, tc.status, tc.typ, msg)
				return true
			}
			o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxRetries = tc.retries })
			_, err := o.Embed(context.Background(), openaiTexts(2))
			if got := len(f.requests()); got != tc.wantReqs {
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
			var ae *openai.APIError
			if !errors.As(err, &ae) || ae.HTTPStatusCode != tc.status {
				t.Errorf("err = %v, want an *openai.APIError with status %d", err, tc.status)
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

// openaiHang blocks until the client gives up on the request.
func openaiHang(w http.ResponseWriter, r *http.Request) bool {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
	return true
}

func TestOpenAITimeout(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, r *http.Request) bool {
		if n == 0 {
			return openaiHang(w, r)
		}
		return false
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.Timeout = 100 * time.Millisecond })
	in := openaiTexts(2)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 8)

	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, r *http.Request) bool {
		return openaiHang(w, r)
	}
	o = newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) {
		c.SkipProbe = true
		c.Timeout = 50 * time.Millisecond
		c.MaxRetries = 1
	})
	_, err = o.Embed(context.Background(), in)
	if !errors.Is(err, ErrRetriesExhausted) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrRetriesExhausted wrapping a deadline", err)
	}
}

func TestOpenAIMalformedJSON(t *testing.T) {
	for _, body := range []string{`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`, `<html>bad gateway</html>`,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AAAA"}]}`} {
		t.Run(body[:10], func(t *testing.T) {
			f := newOpenaiFakeServer(t, "openai", 8)
			bad := 1
			f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
				if n >= bad {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
				return true
			}
			o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxRetries = 2 })
			if _, err := o.Embed(context.Background(), openaiTexts(1)); err != nil {
				t.Fatalf("one garbled answer then a good one: %v", err)
			}
			bad = 1 << 30
			_, err := o.Embed(context.Background(), openaiTexts(1))
			if !errors.Is(err, ErrBadResponse) || !errors.Is(err, ErrRetriesExhausted) {
				t.Fatalf("err = %v, want ErrBadResponse after retries", err)
			}
		})
	}
}

func TestOpenAIBadVectors(t *testing.T) {
	for name, mangle := range map[string]func(openaiFakeItem) openaiFakeItem{
		"wrong dims": func(it openaiFakeItem) openaiFakeItem { it.Embedding = it.Embedding[:7]; return it },
		"all zero":   func(it openaiFakeItem) openaiFakeItem { it.Embedding = make([]float32, 8); return it },
		"null":       func(it openaiFakeItem) openaiFakeItem { it.Embedding = nil; return it },
	} {
		t.Run(name, func(t *testing.T) {
			f := newOpenaiFakeServer(t, "openai", 8)
			f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
				if n == 0 {
					return false // the probe is fine
				}
				items := f.embeddings(req)
				items[1] = mangle(items[1])
				f.answer(w, req, items)
				return true
			}
			o := newTestOpenAI(t, f.BaseURL(), nil)
			got, err := o.Embed(context.Background(), openaiTexts(3))
			if !errors.Is(err, ErrBadVector) || got != nil {
				t.Fatalf("Embed = %v, %v; want nil and ErrBadVector", got, err)
			}
		})
	}
	t.Run("overflow", func(t *testing.T) {
		f := newOpenaiFakeServer(t, "openai", 2)
		f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1e39,0.5]}],"model":"m"}`))
			return true
		}
		o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxRetries = -1 })
		if _, err := o.Embed(context.Background(), openaiTexts(1)); !errors.Is(err, ErrBadResponse) {
			t.Fatalf("err = %v, want ErrBadResponse for a value beyond float32", err)
		}
	})
}

func TestOpenAICheckVector(t *testing.T) {
	o, err := newOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Dimensions: 3})
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := float32(0), float32(1)
	nan /= nan
	inf /= 0
	for _, v := range [][]float32{{1, nan, 0}, {inf, 0, 0}, {0, 0, 0}, {1, 2}, {}} {
		if err := o.check(v); !errors.Is(err, ErrBadVector) {
			t.Errorf("check(%v) = %v, want ErrBadVector", v, err)
		}
	}
	if err := o.check([]float32{0, 1, 0}); err != nil {
		t.Errorf("check(good) = %v", err)
	}
}

func TestOpenAIDimensions(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 1536)
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.Dimensions = 256 })
	got, err := o.Embed(context.Background(), openaiTexts(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 256 || o.Identity().Dimensions != 256 {
		t.Fatalf("got %d dims, identity %d; want 256", len(got[0]), o.Identity().Dimensions)
	}
	if r := f.requests()[0]; r.Dimensions != 256 {
		t.Errorf("request dimensions = %d, want 256", r.Dimensions)
	}

	// Ollama (older versions) ignores "dimensions": the probe must say so.
	ol := newOpenaiFakeServer(t, "ollama", 768)
	_, err = NewOpenAI(context.Background(), OpenAIConfig{BaseURL: ol.BaseURL(), Model: "nomic-embed-text", Dimensions: 256,
		Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrBadVector) || !strings.Contains(err.Error(), "768 dimensions, want 256") || !strings.Contains(err.Error(), "probe") {
		t.Fatalf("err = %v, want a probe error about 768 vs 256 dimensions", err)
	}
}

func TestOpenAICancel(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, r *http.Request) bool {
		return openaiHang(w, r)
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxBatchInputs = 1; c.Timeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := o.Embed(ctx, openaiTexts(20))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("returned after %v, want promptly after cancel", d)
	}
	if n := len(f.requests()); n > 4 {
		t.Errorf("%d requests sent; cancellation should stop new ones (concurrency 4)", n)
	}
}

func TestOpenAIBatchLimits(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	count := func(s string) int { return len(strings.Fields(s)) }
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) {
		c.SkipProbe = true
		c.Concurrency = 1 // keep request order to check coverage
		c.MaxBatchInputs, c.MaxBatchTokens, c.MaxInputTokens = 5, 40, 12
		c.CountTokens = count
	})
	var in []string
	for i := range 30 {
		in = append(in, strings.TrimSpace(strings.Repeat(fmt.Sprintf("w%d ", i), 1+(i*7)%30)))
	}
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, r := range f.requests() {
		tokens := 0
		for _, s := range r.Input {
			if c := count(s); c > 12 {
				t.Errorf("input of %d tokens sent, limit 12", c)
			}
			tokens += count(s)
		}
		if len(r.Input) > 5 || tokens > 40 {
			t.Errorf("request with %d inputs, %d tokens; limits 5, 40", len(r.Input), tokens)
		}
		sent = append(sent, r.Input...)
	}
	// Every text is covered, in order, by its pieces.
	k := 0
	for i, s := range in {
		var pieces []string
		for rest := s; rest != ""; k++ {
			if !strings.HasPrefix(rest, sent[k]) {
				t.Fatalf("text %d: piece %q is not the next part of %q", i, sent[k], rest)
			}
			pieces = append(pieces, sent[k])
			rest = rest[len(sent[k]):]
		}
		want := openaiFakeVec(s, 8)
		if len(pieces) > 1 {
			want = make([]float32, 8)
			for _, p := range pieces {
				for j, x := range openaiFakeVec(p, 8) {
					want[j] += x * float32(count(p))
				}
			}
			openaiNormalize(want)
		}
		for j := range want {
			if d := got[i][j] - want[j]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("text %d (%d pieces): vector %v, want %v", i, len(pieces), got[i], want)
			}
		}
	}
	if k != len(sent) {
		t.Errorf("%d inputs sent, %d accounted for", len(sent), k)
	}
}

func TestOpenAIEmptyText(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8) // rejects "" like OpenAI does
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true })
	got, err := o.Embed(context.Background(), []string{"a", "", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[1], openaiFakeVec(" ", 8)) {
		t.Errorf("empty text not sent as a space")
	}
}

func TestOpenAIConcurrencyBound(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.latency = 20 * time.Millisecond
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxBatchInputs = 2; c.Concurrency = 3 })
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 { // two callers share the bound
		wg.Go(func() {
			_, err := o.Embed(context.Background(), openaiTexts(24))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := f.maxInflight.Load(); m > 3 || m < 2 {
		t.Errorf("max requests in flight = %d, want 2..3 (bound 3)", m)
	}
	if got := len(f.requests()); got != 24 {
		t.Errorf("requests = %d, want 24", got)
	}
}

func TestOpenAIEmbedQuery(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	fail := 0
	var mu sync.Mutex
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if fail > 0 {
			fail--
			openaiFakeError(w, 500, "server_error", "oops")
			return true
		}
		return false
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.QueryCacheSize = 2 })
	ctx := context.Background()
	q, err := o.EmbedQuery(ctx, "what is bbolt")
	if err != nil {
		t.Fatal(err)
	}
	q[0] = 42 // the caller's copy
	again, err := o.EmbedQuery(ctx, "what is bbolt")
	if err != nil || !slices.Equal(again, openaiFakeVec("what is bbolt", 8)) {
		t.Fatalf("cached query = %v, %v; want the server's vector, untouched", again, err)
	}
	if u := o.Usage(); u.Requests != 1 || u.CacheHits != 1 {
		t.Errorf("Usage = %+v, want 1 request and 1 cache hit", u)
	}

	mu.Lock()
	fail = 1
	mu.Unlock()
	if _, err := o.EmbedQuery(ctx, "retried once"); err != nil {
		t.Fatalf("one 500 then ok: %v", err)
	}
	mu.Lock()
	fail = 2
	mu.Unlock()
	before := len(f.requests())
	if _, err := o.EmbedQuery(ctx, "fails twice"); !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("err = %v, want ErrRetriesExhausted after one retry", err)
	}
	if got := len(f.requests()) - before; got != 2 {
		t.Errorf("query attempts = %d, want 2", got)
	}
	if n := o.cache.len(); n != 2 {
		t.Errorf("cache holds %d, want its capacity 2", n)
	}
}

func TestOpenAIQueryTimeout(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, r *http.Request) bool {
		return openaiHang(w, r)
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.QueryTimeout = 50 * time.Millisecond })
	start := time.Now()
	_, err := o.EmbedQuery(context.Background(), "slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 50ms query timeout", d)
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := NewOpenAI(ctx, OpenAIConfig{}); !errors.Is(err, ErrMissingAPIKey) {
		t.Errorf("no key for api.openai.com: err = %v, want ErrMissingAPIKey", err)
	}
	for _, cfg := range []OpenAIConfig{
		{BaseURL: "localhost:11434/v1"},
		{BaseURL: "ftp://127.0.0.1/v1"},
		{BaseURL: "http://127.0.0.1/v1", Dimensions: -1},
		{BaseURL: "http://127.0.0.1/v1", MaxInputTokens: 9000, MaxBatchTokens: 8000},
		{BaseURL: "http://127.0.0.1/v1", Concurrency: -2},
	} {
		if _, err := NewOpenAI(ctx, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("NewOpenAI(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestOpenAIIdentityStripsSecrets(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	base := strings.Replace(f.BaseURL(), "http://", "http://user:hunter2@", 1) + "/?api-key=s3cret#frag"
	o := newTestOpenAI(t, base, nil)
	if got := o.Identity().BaseURL; got != f.BaseURL() {
		t.Errorf("Identity().BaseURL = %q, want %q", got, f.BaseURL())
	}
	r := f.requests()[0]
	if r.Path != "/v1/embeddings" || r.Query != "api-key=s3cret" {
		t.Errorf("request path %q query %q; want the query kept on the wire", r.Path, r.Query)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err = NewOpenAI(context.Background(), OpenAIConfig{BaseURL: "http://" + addr + "/v1", Model: "m",
		RetryBaseDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "probe embeddings at http://"+addr) {
		t.Fatalf("err = %v, want a probe error naming the server", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to report an unreachable server", d)
	}
}

func TestOpenAIWrongPath(t *testing.T) {
	f := newOpenaiFakeServer(t, "ollama", 8)
	// Forgetting /v1 is the classic Ollama mistake; the 404 body is plain text.
	_, err := NewOpenAI(context.Background(), OpenAIConfig{BaseURL: f.URL, Model: "nomic-embed-text",
		Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "/v1") {
		t.Fatalf("err = %v, want a hint about /v1", err)
	}
}

func TestOpenAIPanicRecovered(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) {
		c.SkipProbe = true
		c.CountTokens = func(s string) int {
			if strings.Contains(s, "boom") {
				panic("tokenizer exploded")
			}
			return len(s)
		}
	})
	_, err := o.Embed(context.Background(), []string{"fine", "boom"})
	if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "tokenizer exploded") {
		t.Fatalf("err = %v, want ErrPanic", err)
	}
}

func TestOpenAIBase64(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 32)
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.EncodingFormat = "base64" })
	in := openaiTexts(5)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 32)
	if r := f.requests()[1]; r.EncodingFormat != "base64" {
		t.Errorf("encoding_format = %q, want base64", r.EncodingFormat)
	}

	// NaN can only arrive in base64; it must be caught.
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		items := f.embeddings(req)
		items[0].Embedding[3] = float32(math.NaN())
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": openaiFakeBase64(items), "model": req.Model})
		return true
	}
	if _, err := o.Embed(context.Background(), in); !errors.Is(err, ErrBadVector) {
		t.Fatalf("NaN in base64: err = %v, want ErrBadVector", err)
	}
}

func TestOpenAIEncodingDefault(t *testing.T) {
	o, err := newOpenAI(OpenAIConfig{APIKey: "sk"})
	if err != nil || o.cfg.EncodingFormat != "base64" {
		t.Errorf("api.openai.com: encoding %q, %v; want base64", o.cfg.EncodingFormat, err)
	}
	if o.cfg.MaxBatchInputs != 2048 || o.cfg.Timeout != time.Minute {
		t.Errorf("api.openai.com: batch %d, timeout %v; want 2048, 1m", o.cfg.MaxBatchInputs, o.cfg.Timeout)
	}
	o, err = newOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:11434/v1"})
	if err != nil || o.cfg.EncodingFormat != "float" {
		t.Errorf("compatible server: encoding %q, %v; want float", o.cfg.EncodingFormat, err)
	}
	if o.cfg.MaxBatchInputs != 64 || o.cfg.Timeout != 2*time.Minute {
		t.Errorf("compatible server: batch %d, timeout %v; want 64, 2m", o.cfg.MaxBatchInputs, o.cfg.Timeout)
	}
	f := newOpenaiFakeServer(t, "ollama", 8)
	newTestOpenAI(t, f.BaseURL(), nil)
	if r := f.requests()[0]; r.HasEncoding {
		t.Errorf("encoding_format sent to a compatible server: %q", r.EncodingFormat)
	}
	if _, err := newOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1/v1", EncodingFormat: "int8"}); !errors.Is(err, ErrConfig) {
		t.Errorf("encoding int8: err = %v, want ErrConfig", err)
	}
}

func TestOpenAISecretsNotInErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs strings.Builder
	_, err = NewOpenAI(context.Background(), OpenAIConfig{
		BaseURL: "http://bob:pa55word@" + addr + "/v1?api-key=s3cret", Model: "m", APIKey: "sk-live-123",
		RetryBaseDelay: time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err == nil {
		t.Fatal("want an error from an unreachable server")
	}
	for _, secret := range []string{"s3cret", "pa55word", "sk-live-123"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("secret %q leaked:\nerr: %v\nlogs: %s", secret, err, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("no retry logged: %q", logs.String())
	}
}

func TestOpenAIDroppedConnectionRetried(t *testing.T) {
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		if n != 0 {
			return false
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // no answer at all
		}
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true })
	in := openaiTexts(3)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 8)
	if u := o.Usage(); u.Requests != 2 || u.Retries != 1 {
		t.Errorf("Usage = %+v, want one retry", u)
	}
}
