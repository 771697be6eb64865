package library_test

import (
	"context"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
)

// TestWritesCacheOnlyRemoteEmbedders: a write session wraps a network
// embedder in the embed cache and a local one (embed.Traits.Local: the
// offline embedder) not, by its traits rather than its provider's name.
func TestWritesCacheOnlyRemoteEmbedders(t *testing.T) {
	f := newFixture(t, library.Options{})
	for _, c := range []struct {
		id     embed.Identity
		cached bool
	}{
		{embed.Identity{Provider: embed.HashProvider, Model: "m", Dimensions: 64}, false},
		{embed.Identity{Provider: "test", Model: "words", Dimensions: 64}, true},
	} {
		w := f.Lib.BeginWrites(context.Background(), wordEmbedder, c.id, 8, 1, 0)
		if _, ok := w.Cached(); ok != c.cached {
			t.Errorf("%s: cached %v, want %v", c.id, ok, c.cached)
		}
		if err := w.Finish(context.Background(), true); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmbedderOptionsFollowTraits: a lexical-grade embedder that weighs
// query words (the offline one) gets BM25 by default, the scan index and
// the idf hook; another embedder hybrid search with rank fusion.
func TestEmbedderOptionsFollowTraits(t *testing.T) {
	o := library.EmbedderOptions(embed.NewHash(embed.HashConfig{}))
	if o.Mode != library.Lexical || o.Fusion != library.FusionScores || !o.Index.Scan || o.UseIDF == nil {
		t.Errorf("offline embedder options = %+v, want lexical, score fusion, scan, idf", o)
	}
	o = library.EmbedderOptions(wordEmbedder)
	if o.Mode != "" || o.Fusion != library.FusionRRF || o.Index.Scan || o.UseIDF != nil {
		t.Errorf("word embedder options = %+v, want the default mode and rank fusion", o)
	}
}
