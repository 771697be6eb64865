package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

// newFake starts a fake server of flavor with vectors of dims.
func newFake(tb testing.TB, flavor openaitest.Flavor, dims int) *openaitest.Server {
	tb.Helper()
	return openaitest.NewServer(tb, openaitest.Options{Flavor: flavor, Dimensions: dims})
}

// newTestOpenAI builds an embedder against base with fast retries and a
// silent logger; mutate adjusts the config. It probes unless told not to.
func newTestOpenAI(t *testing.T, base string, mutate func(*Config)) *Embedder {
	t.Helper()
	cfg := Config{
		APIKey: "sk-test", APIKeyName: "TEST_KEY_VAR", BaseURL: base, Model: "text-embedding-3-small",
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 20 * time.Millisecond,
		Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	o, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return o
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage number %d about something", i)
	}
	return out
}

func assertVecs(t *testing.T, in []string, got [][]float32, dims int) {
	t.Helper()
	if len(got) != len(in) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(in))
	}
	for i, s := range in {
		if want := openaitest.Vector(s, dims); !slices.Equal(got[i], want) {
			t.Fatalf("vector %d (%q) is not the server's vector for that text", i, s)
		}
	}
}

// hang blocks until the client gives up on the request.
func hang(w http.ResponseWriter, r *http.Request) bool {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
	return true
}
