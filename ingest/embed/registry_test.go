package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// TestOpenBuildsTheOfflineEmbedder: an identity naming the offline embedder
// (or no provider) opens it with the recorded dimensions; one of another
// hashing model is refused with the way out.
func TestOpenBuildsTheOfflineEmbedder(t *testing.T) {
	ctx := context.Background()
	for _, id := range []embed.Identity{{Provider: embed.HashProvider, Dimensions: 256}, {Dimensions: 256}} {
		emb, err := embed.Open(ctx, id, embed.Options{})
		if err != nil {
			t.Fatalf("Open(%+v): %v", id, err)
		}
		want := embed.NewHash(embed.HashConfig{Dimensions: 256}).Identity()
		if got := emb.Identity(); got != want {
			t.Errorf("Open(%+v).Identity() = %+v, want %+v", id, got, want)
		}
		if _, ok := emb.(embed.QueryWeighter); !ok {
			t.Errorf("the offline embedder does not weigh query words")
		}
	}
	emb, err := embed.Open(ctx, embed.Identity{Provider: embed.HashProvider}, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := emb.Identity().Dimensions, embed.DefaultHashConfig().Dimensions; got != want {
		t.Errorf("default dimensions = %d, want %d", got, want)
	}
	_, err = embed.Open(ctx, embed.Identity{Provider: embed.HashProvider, Model: "hash-v1", Dimensions: 384}, embed.Options{})
	if err == nil || !strings.Contains(err.Error(), `built with offline embedder "hash-v1"`) || !strings.Contains(err.Error(), "mcpvec reindex --embedder hash") {
		t.Errorf("Open(old model) = %v, want a refusal pointing to reindex", err)
	}
}

// TestOpenRefusesUnknownProviders names the registered ones.
func TestOpenRefusesUnknownProviders(t *testing.T) {
	_, err := embed.Open(context.Background(), embed.Identity{Provider: "nope"}, embed.Options{})
	if !errors.Is(err, embed.ErrUnknownProvider) {
		t.Fatalf("Open(nope) = %v, want ErrUnknownProvider", err)
	}
	if got, want := err.Error(), `unknown embedder "nope" (want hash`; !strings.HasPrefix(got, want) {
		t.Errorf("error = %q, want it to start %q", got, want)
	}
}

// TestRegisteredProvidersOpenAndReportTraits: a provider registered from
// outside the package is opened by name and answers TraitsOf; the error
// for an unknown name lists every provider.
func TestRegisteredProvidersOpenAndReportTraits(t *testing.T) {
	var got embed.Options
	embed.Register(embed.Provider{
		Name: "test-remote",
		Open: func(_ context.Context, id embed.Identity, o embed.Options) (embed.Embedder, error) {
			got = o
			return embed.NewHash(embed.HashConfig{Dimensions: id.Dimensions}), nil
		},
		Traits: func(id embed.Identity) embed.Traits { return embed.Traits{Batch: 7, Parallel: id.Dimensions} },
	})
	opts := embed.Options{APIKey: "k", APIKeyName: "KEY", Concurrency: 3}
	if _, err := embed.Open(context.Background(), embed.Identity{Provider: "test-remote", Dimensions: 16}, opts); err != nil {
		t.Fatal(err)
	}
	if got != opts {
		t.Errorf("provider got options %+v, want %+v", got, opts)
	}
	if got, want := embed.TraitsOf(embed.Identity{Provider: "test-remote", Dimensions: 2}), (embed.Traits{Batch: 7, Parallel: 2}); got != want {
		t.Errorf("TraitsOf(test-remote) = %+v, want %+v", got, want)
	}
	_, err := embed.Open(context.Background(), embed.Identity{Provider: "nope"}, embed.Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "(want hash or test-remote)") {
		t.Errorf("Open(nope) = %v, want both providers listed", err)
	}
}

// TestTraits: the offline embedder is local, lexical-grade, of one model,
// in few large batches; an unregistered provider is a network embedder.
func TestTraits(t *testing.T) {
	hash := embed.TraitsOf(embed.Identity{Provider: embed.HashProvider})
	if !hash.Local || !hash.LexicalGrade || !hash.OneModel {
		t.Errorf("hash traits = %+v, want local, lexical-grade, one model", hash)
	}
	if got := embed.TraitsOf(embed.Identity{}); got != hash {
		t.Errorf("TraitsOf(no provider) = %+v, want the offline embedder's %+v", got, hash)
	}
	other := embed.TraitsOf(embed.Identity{Provider: "unregistered"})
	if other.Local || other.LexicalGrade || other.OneModel {
		t.Errorf("unregistered traits = %+v, want a network embedder's", other)
	}
	for _, c := range []struct {
		t                 embed.Traits
		parallel          int
		wantSize, wantPar int
	}{
		{hash, 8, 1024, 1},
		{other, 3, 256, 3},
		{other, 0, 256, 4},
		{embed.Traits{Batch: 64}, -1, 64, 4},
	} {
		if size, par := c.t.Batching(c.parallel); size != c.wantSize || par != c.wantPar {
			t.Errorf("%+v.Batching(%d) = %d, %d; want %d, %d", c.t, c.parallel, size, par, c.wantSize, c.wantPar)
		}
	}
}

// TestIdentityIsTheStoreRecord: the identity and the store's record of it
// convert into each other and write the same JSON, so the meta record on
// disk is unchanged; they agree on Same and String.
func TestIdentityIsTheStoreRecord(t *testing.T) {
	id := embed.Identity{Provider: "openai", Model: "m", Dimensions: 8, BaseURL: "http://h/v1"}
	rec := store.EmbedderInfo(id)
	a, err := json.Marshal(id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(a), `{"provider":"openai","model":"m","dimensions":8,"base_url":"http://h/v1"}`; got != want || string(b) != want {
		t.Errorf("JSON = %s and %s, want %s", a, b, want)
	}
	if got, want := id.String(), rec.String(); got != want {
		t.Errorf("String = %q, store's %q", got, want)
	}
	for _, o := range []embed.Identity{id, {Provider: "openai", Model: "m", Dimensions: 8}, {Provider: "openai", Model: "m", Dimensions: 9}, {Provider: "hash", Model: "m", Dimensions: 8}} {
		if got, want := id.Same(o), rec.Same(store.EmbedderInfo(o)); got != want {
			t.Errorf("Same(%+v) = %v, store's %v", o, got, want)
		}
	}
}
