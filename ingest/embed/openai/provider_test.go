package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/openai"
	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

// TestOpenBuildsTheOpenAIEmbedder: linked in, the provider is opened by
// name through embed.Open with the user's key; it asks for shortened
// vectors only when the recorded dimensions differ from the model's.
func TestOpenBuildsTheOpenAIEmbedder(t *testing.T) {
	f := openaitest.NewServer(t, openaitest.Options{Dimensions: 64})
	ctx := context.Background()
	for _, c := range []struct {
		dims, wantDims, wantRequests int
	}{
		{0, 64, 1},  // the model's size, learned by the probe
		{64, 64, 1}, // the model's own size: no dimensions field
		{32, 32, 2}, // probed, then asked for 32
	} {
		before := len(f.Requests())
		id := embed.Identity{Provider: openai.Provider, Model: "text-embedding-3-small", Dimensions: c.dims, BaseURL: f.BaseURL()}
		emb, err := embed.Open(ctx, id, embed.Options{APIKey: "sk-test", Concurrency: 2})
		if err != nil {
			t.Fatalf("Open(%d dimensions): %v", c.dims, err)
		}
		want := embed.Identity{Provider: "openai", Model: "text-embedding-3-small", Dimensions: c.wantDims, BaseURL: f.BaseURL()}
		if got := emb.Identity(); got != want {
			t.Errorf("Identity = %+v, want %+v", got, want)
		}
		reqs := f.Requests()[before:]
		if got := len(reqs); got != c.wantRequests {
			t.Fatalf("%d dimensions: %d requests, want %d", c.dims, got, c.wantRequests)
		}
		if last := reqs[len(reqs)-1]; last.Auth != "Bearer sk-test" || (c.wantRequests == 2) != (last.Dimensions == 32) {
			t.Errorf("%d dimensions: last request %+v", c.dims, last)
		}
	}
}

// TestOpenWithoutKeyForOpenAI: api.openai.com (the default base URL)
// needs a key; the error names where to set it, before any request.
func TestOpenWithoutKeyForOpenAI(t *testing.T) {
	_, err := embed.Open(context.Background(), embed.Identity{Provider: openai.Provider}, embed.Options{APIKeyName: "OPENAI_API_KEY"})
	if !errors.Is(err, openai.ErrMissingAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("Open without key = %v, want ErrMissingAPIKey naming OPENAI_API_KEY", err)
	}
}

// TestTraitsFollowTheHost: a network embedder, one request a batch: 256
// inputs for api.openai.com (also when no base URL is recorded), 64 for
// other servers, which may embed on a CPU.
func TestTraitsFollowTheHost(t *testing.T) {
	for base, want := range map[string]int{
		"": 256, "https://api.openai.com/v1": 256, "https://API.OpenAI.com/v1?x=1": 256,
		"http://localhost:11434/v1": 64, "https://api.openai.com.evil.example/v1": 64,
	} {
		tr := embed.TraitsOf(embed.Identity{Provider: openai.Provider, BaseURL: base})
		if tr.Local || tr.LexicalGrade || tr.OneModel || tr.Batch != want || tr.Parallel != 0 {
			t.Errorf("TraitsOf(%q) = %+v, want a network embedder in batches of %d", base, tr, want)
		}
	}
}
