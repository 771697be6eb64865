package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net"
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

// newPair starts an OpenAI-flavoured fake with vectors of dims and an
// embedder against it (see newTestOpenAI).
func newPair(t *testing.T, dims int, mutate func(*Config)) (*openaitest.Server, *Embedder) {
	t.Helper()
	f := newFake(t, openaitest.OpenAI, dims)
	return f, newTestOpenAI(t, f.BaseURL(), mutate)
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

// mustEmbed embeds in and checks that every vector is the server's vector
// for its text.
func mustEmbed(t *testing.T, o *Embedder, in []string, dims int) {
	t.Helper()
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	assertVecs(t, in, got, dims)
}

// mangle makes f answer request n, when when(n), with its own items
// passed through change.
func mangle(f *openaitest.Server, when func(n int) bool, change func([]openaitest.Item) []openaitest.Item) {
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
		if !when(n) {
			return false
		}
		f.Answer(w, req, change(f.Embeddings(req)))
		return true
	})
}

// hangWhen makes f hang on request n, when when(n), until the client gives
// up.
func hangWhen(f *openaitest.Server, when func(n int) bool) {
	f.SetHook(func(n int, _ openaitest.Request, w http.ResponseWriter, r *http.Request) bool {
		return when(n) && hang(w, r)
	})
}

// always and only are conditions for mangle and hangWhen.
func always(int) bool { return true }

func only(k int) func(int) bool { return func(n int) bool { return n == k } }

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
