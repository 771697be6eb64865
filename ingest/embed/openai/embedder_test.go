package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

func TestOpenAIBatchLimits(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	count := func(s string) int { return len(strings.Fields(s)) }
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) {
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
	for _, r := range f.Requests() {
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
		want := openaitest.Vector(s, 8)
		if len(pieces) > 1 {
			want = make([]float32, 8)
			for _, p := range pieces {
				for j, x := range openaitest.Vector(p, 8) {
					want[j] += x * float32(count(p))
				}
			}
			normalize(want)
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

func TestOpenAIConcurrencyBound(t *testing.T) {
	f := openaitest.NewServer(t, openaitest.Options{Dimensions: 8, Latency: 20 * time.Millisecond})
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxBatchInputs = 2; c.Concurrency = 3 })
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 { // two callers share the bound
		wg.Go(func() {
			_, err := o.Embed(context.Background(), texts(24))
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
	if m := f.MaxInflight(); m > 3 || m < 2 {
		t.Errorf("max requests in flight = %d, want 2..3 (bound 3)", m)
	}
	if got := len(f.Requests()); got != 24 {
		t.Errorf("requests = %d, want 24", got)
	}
}

func TestOpenAIEmbedQuery(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	fail := 0
	var mu sync.Mutex
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if fail > 0 {
			fail--
			openaitest.WriteError(w, 500, "server_error", "oops")
			return true
		}
		return false
	})
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.QueryCacheSize = 2 })
	ctx := context.Background()
	q, err := o.EmbedQuery(ctx, "what is bbolt")
	if err != nil {
		t.Fatal(err)
	}
	q[0] = 42 // the caller's copy
	again, err := o.EmbedQuery(ctx, "what is bbolt")
	if err != nil || !slices.Equal(again, openaitest.Vector("what is bbolt", 8)) {
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
	before := len(f.Requests())
	if _, err := o.EmbedQuery(ctx, "fails twice"); !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("err = %v, want ErrRetriesExhausted after one retry", err)
	}
	if got := len(f.Requests()) - before; got != 2 {
		t.Errorf("query attempts = %d, want 2", got)
	}
	if n := o.cache.Len(); n != 2 {
		t.Errorf("cache holds %d, want its capacity 2", n)
	}
}

func TestOpenAIServerCapsBatch(t *testing.T) {
	// A server that silently answers only its first 4 inputs per request.
	f := newFake(t, openaitest.OpenAI, 8)
	mangle(f, always, func(items []openaitest.Item) []openaitest.Item { return items[:min(4, len(items))] })
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxRetries = 1 })
	in := texts(18)
	mustEmbed(t, o, in, 8)
	if n := len(f.Requests()); n != 5 {
		t.Errorf("requests = %d, want 5 (4 answered each time)", n)
	}
	if r := o.Usage().Retries; r != 0 {
		t.Errorf("retries = %d; progress must not spend the retry budget", r)
	}
}
