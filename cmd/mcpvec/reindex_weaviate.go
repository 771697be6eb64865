package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/store"
)

// reindex re-embeds the Weaviate library into a new collection (r.into):
// vectors cannot change dimensions inside one collection, so the new
// vectors are built beside the old ones, which keep serving. Run again
// after an interruption, it embeds only the documents not yet copied.
// Switching is pointing --store (or $MCPVEC_STORE) at the new collection.
func (b weaviateBackend) reindex(ctx context.Context, e *env, _ *handle, r reindexFlags) error {
	into, lf, ef := r.into, r.lf, r.ef
	if r.discard {
		return errors.New("a Weaviate reindex keeps nothing staged in the old collection: to throw an interrupted one away, delete the new collection's classes (…Passage, …Document, …Meta)")
	}
	if into == "" || !ef.set() {
		return errors.New("reindex of a Weaviate library builds a new collection: --into weaviate://host:port/NewCollection --embedder hash|ollama|openai [--embed-model M] [--dimensions N]")
	}
	target, err := ef.reindexTarget(e)
	if err != nil {
		return err
	}
	emb, err := newEmbedder(ctx, e, target, nil)
	if err != nil {
		return failf("embedder: %w", err)
	}
	dst, err := openWeaviateStore(ctx, e, into, lf.coll)
	if err != nil {
		return err
	}
	defer dst.Close()
	start := time.Now()
	re := weaviate.Reembed{Identity: store.EmbedderInfo(emb.Identity()), Embed: emb.Embed}
	p, err := b.wv.Collection().CopyInto(ctx, dst, re, weaviate.CopyOptions{Settings: carriedSettings,
		Progress: func(p weaviate.CopyProgress) {
			fmt.Fprintf(e.stderr, "\rreindex: %d/%d documents (%d already there)", p.Copied+p.Skipped, p.Total, p.Skipped)
		}})
	fmt.Fprintln(e.stderr)
	if err != nil {
		return failf("reindex stopped (rerun the same command to resume): %w", err)
	}
	fmt.Fprintf(e.stdout, "reindexed %d documents (%d were already there) into %s with %s in %s; serve it with --store %s\n",
		p.Copied, p.Skipped, into, re.Identity, time.Since(start).Round(time.Millisecond), into)
	return nil
}
