package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/ollama/ollamatest"
)

// quiet is a Config for the fake at base with short backoffs and no logs.
func quiet(base, model string) Config {
	return Config{BaseURL: base, Model: model, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestNewChecksTagsThenProbesWithTheDocumentedBody: New lists the models,
// then sends the probe exactly as the documented request, and records the
// dimensions and base URL.
func TestNewChecksTagsThenProbesWithTheDocumentedBody(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	e, err := New(context.Background(), quiet(fake.Host(), "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Method != "GET" || reqs[0].Path != "/api/tags" || reqs[1].Path != "/api/embed" {
		t.Fatalf("requests %+v, want GET /api/tags then POST /api/embed", reqs)
	}
	if got, want := string(reqs[1].Body), `{"model":"nomic-embed-text","input":["mcpvec probe"],"truncate":true}`; got != want {
		t.Fatalf("probe body %s, want %s", got, want)
	}
	want := embed.Identity{Provider: "ollama", Model: "nomic-embed-text", Dimensions: ollamatest.DefaultDimensions, BaseURL: fake.URL}
	if got := e.Identity(); got != want {
		t.Fatalf("identity %+v, want %+v", got, want)
	}
}

// TestModelNamesMatchWithOrWithoutLatest: "name" and "name:latest" are the
// same model; another tag is not.
func TestModelNamesMatchWithOrWithoutLatest(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{Models: []string{"nomic-embed-text:latest", "all-minilm:l6-v2"}})
	for _, m := range []string{"nomic-embed-text", "nomic-embed-text:latest", "all-minilm:l6-v2"} {
		if _, err := New(context.Background(), quiet(fake.URL, m)); err != nil {
			t.Errorf("model %q: %v", m, err)
		}
	}
	_, err := New(context.Background(), quiet(fake.URL, "all-minilm"))
	if !errors.Is(err, ErrModelMissing) || !strings.Contains(err.Error(), "run: ollama pull all-minilm") {
		t.Fatalf("all-minilm (only :l6-v2 pulled): %v", err)
	}
}

// TestMissingModelNamesThePullCommand: a model not pulled fails New before
// any embedding request, with the exact command; one removed later fails
// the embedding the same way, without retries.
func TestMissingModelNamesThePullCommand(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	_, err := New(context.Background(), quiet(fake.URL, "mxbai-embed-large"))
	if !errors.Is(err, ErrModelMissing) || !strings.HasSuffix(err.Error(), "run: ollama pull mxbai-embed-large") {
		t.Fatalf("New with a model not pulled: %v", err)
	}
	if n := len(fake.Embeds()); n != 0 {
		t.Fatalf("%d embedding requests for a missing model", n)
	}
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	fake.SetModels("llama3.2:3b")
	before := len(fake.Embeds())
	_, err = e.Embed(context.Background(), []string{"a passage"})
	if !errors.Is(err, ErrModelMissing) || !strings.Contains(err.Error(), `model "nomic-embed-text" not found, try pulling it first`) ||
		!strings.HasSuffix(err.Error(), "run: ollama pull nomic-embed-text") {
		t.Fatalf("embed after the model was removed: %v", err)
	}
	if n := len(fake.Embeds()) - before; n != 1 {
		t.Fatalf("%d requests for a removed model, want 1 (no retries)", n)
	}
}

// TestServerDownSaysHowToStartIt: nothing listening is ErrNotRunning with
// the address, `ollama serve` and OLLAMA_HOST, quickly.
func TestServerDownSaysHowToStartIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err = New(context.Background(), quiet(addr, "nomic-embed-text"))
	for _, want := range []string{"ollama is not running at http://" + addr, "ollama serve", "OLLAMA_HOST"} {
		if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), want) {
			t.Fatalf("New against a closed port: %v; want %q", err, want)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s to report a stopped server", d)
	}
	// Stopped while embedding: refused connections are retried, then fail.
	cfg := quiet(addr, "nomic-embed-text")
	cfg.SkipProbe = true
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"a passage"})
	if !errors.Is(err, ErrRetriesExhausted) || !errors.Is(err, ErrNotRunning) || e.Usage().Retries != 4 {
		t.Fatalf("embed against a stopped server: %v after %d retries", err, e.Usage().Retries)
	}
}

// TestNotOllamaPointsToTheOpenAIProvider: a server without the native API
// (an OpenAI-compatible one) is named as such.
func TestNotOllamaPointsToTheOpenAIProvider(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		http.NotFound(w, r)
		return true
	})
	_, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if !errors.Is(err, ErrNotOllama) || !strings.Contains(err.Error(), "--embedder openai") {
		t.Fatalf("New against a server without /api/tags: %v", err)
	}
}

// TestEmbedBatchesInOrderWithOptions: 150 texts go as batches of 64 with
// keep_alive and dimensions when configured; vectors come back in order.
func TestEmbedBatchesInOrderWithOptions(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 64})
	cfg := quiet(fake.URL, "nomic-embed-text")
	cfg.KeepAlive, cfg.Dimensions, cfg.SkipProbe = "30m", 64, true
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage number %d about lighthouses", i)
	}
	texts[7] = ""
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		want := fake.Vector(texts[i])
		if texts[i] == "" {
			want = fake.Vector(" ")
		}
		if len(v) != 64 || v[1] != want[1] || v[63] != want[63] {
			t.Fatalf("vector %d is not the fake's for its text", i)
		}
	}
	reqs := fake.Embeds()
	if len(reqs) != 3 || len(reqs[0].Input)+len(reqs[1].Input)+len(reqs[2].Input) != 150 || max(len(reqs[0].Input), len(reqs[1].Input)) != 64 {
		t.Fatalf("%d requests, want batches of 64, 64 and 22", len(reqs))
	}
	if b := string(reqs[0].Body); !strings.Contains(b, `"truncate":true,"dimensions":64,"keep_alive":"30m"}`) {
		t.Fatalf("request body %s", b[len(b)-80:])
	}
	if u := e.Usage(); u.Inputs != 150 || u.Tokens == 0 || u.Requests != 3 {
		t.Fatalf("usage %+v", u)
	}
}

// TestEmbedRetries5xxAndDroppedConnections: 500 and 503 are retried with
// backoff until the answer comes; dropped connections until the retries
// run out.
func TestEmbedRetries5xxAndDroppedConnections(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		if fails < 2 {
			fails++
			ollamatest.WriteError(w, []int{500, 503}[fails-1], "server busy, please try again.  maximum pending requests exceeded")
			return true
		}
		return false
	})
	if _, err := e.Embed(context.Background(), []string{"one", "two"}); err != nil {
		t.Fatal(err)
	}
	if u := e.Usage(); u.Retries != 2 {
		t.Fatalf("%d retries, want 2", u.Retries)
	}
	fake.SetHook(func(int, ollamatest.Request, http.ResponseWriter, *http.Request) bool { panic(http.ErrAbortHandler) })
	_, err = e.Embed(context.Background(), []string{"dropped"})
	if !errors.Is(err, ErrRetriesExhausted) || errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("dropped connections: %v", err)
	}
	if u := e.Usage(); u.Retries != 2+4 {
		t.Fatalf("%d retries, want 6", u.Retries)
	}
}

// TestBadAnswersAreRefused: a wrong number of vectors, a wrong length, an
// oversized answer and a 400 are errors, never vectors.
func TestBadAnswersAreRefused(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 32})
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   error
		text   string
	}{
		{"one vector for two", func(w http.ResponseWriter) {
			ollamatest.WriteJSON(w, 200, map[string]any{"embeddings": [][]float32{fake.Vector("a")}})
		}, ErrBadResponse, "1 embeddings for 2 inputs"},
		{"short vectors", func(w http.ResponseWriter) {
			ollamatest.WriteJSON(w, 200, map[string]any{"embeddings": [][]float32{fake.Vector("a")[:31], fake.Vector("b")[:31]}})
		}, embed.ErrBadVector, "31 dimensions, want 32"},
		{"oversized", func(w http.ResponseWriter) {
			w.WriteHeader(200)
			io.WriteString(w, `{"embeddings":[[`+strings.Repeat("0.1,", 1<<20)+`0.1]]}`)
		}, ErrBadResponse, "answer over"},
		{"400", func(w http.ResponseWriter) {
			ollamatest.WriteError(w, 400, "input length exceeds maximum context length")
		}, nil, "http 400: input length exceeds maximum context length"},
	} {
		fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
			tc.answer(w)
			return true
		})
		before := len(fake.Requests())
		_, err := e.Embed(context.Background(), []string{"a", "b"})
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if n := len(fake.Requests()) - before; n != 1 {
			t.Errorf("%s: %d requests, want 1 (not retried)", tc.name, n)
		}
	}
}

// TestSlowAnswerEndsWithTheContext: a hung server does not hold a caller
// past its context.
func TestSlowAnswerEndsWithTheContext(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done()
		return true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = e.EmbedQuery(ctx, "where are the lighthouses")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("EmbedQuery on a hung server: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("returned after %s, the context ended at 200ms", d)
	}
}

// TestRegisteredWithTheEmbedRegistry: embed.Open builds an Ollama embedder
// from a recorded identity, asking for the recorded dimensions when the
// model's own differ; its traits are a network embedder's, two batches of
// 64 in flight.
func TestRegisteredWithTheEmbedRegistry(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	id := embed.Identity{Provider: "ollama", Model: "nomic-embed-text", BaseURL: fake.URL}
	e, err := embed.Open(context.Background(), id, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Identity().Dimensions; got != ollamatest.DefaultDimensions {
		t.Fatalf("dimensions %d", got)
	}
	id.Dimensions = 256
	if _, err := embed.Open(context.Background(), id, embed.Options{}); !errors.Is(err, embed.ErrBadVector) {
		t.Fatalf("open asking for 256 dimensions of a server that ignores them: %v", err)
	}
	last := fake.Embeds()
	if b := string(last[len(last)-1].Body); !strings.Contains(b, `"dimensions":256`) {
		t.Fatalf("no dimensions asked: %s", b)
	}
	if got, want := embed.TraitsOf(id), (embed.Traits{Batch: 64, Parallel: 2}); got != want {
		t.Fatalf("traits %+v, want %+v", got, want)
	}
}

// TestConcurrencyBoundsRequestsAcrossCallers: two callers embedding five
// batches each never have more than Concurrency (default 2) requests at
// Ollama at once.
func TestConcurrencyBoundsRequestsAcrossCallers(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 16})
	cfg := quiet(fake.URL, "nomic-embed-text")
	cfg.SkipProbe = true
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var inflight, most atomic.Int64
	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		now := inflight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		inflight.Add(-1)
		return false
	})
	texts := make([]string, 5*64)
	for i := range texts {
		texts[i] = fmt.Sprint("passage ", i)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if _, err := e.Embed(context.Background(), texts); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := most.Load(); got != 2 {
		t.Fatalf("at most %d requests in flight, want 2", got)
	}
}

// TestQueryVectorsAreCached: a repeated query is answered without a
// request, and the caller's copy is its own.
func TestQueryVectorsAreCached(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 16})
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(fake.Embeds())
	v1, err := e.EmbedQuery(context.Background(), "lighthouse keepers")
	if err != nil {
		t.Fatal(err)
	}
	v1[0] = 42
	v2, err := e.EmbedQuery(context.Background(), "lighthouse keepers")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Embeds()) - before; n != 1 || e.Usage().CacheHits != 1 || v2[0] == 42 {
		t.Fatalf("%d requests, usage %+v, second answer %v", n, e.Usage(), v2[:2])
	}
}
