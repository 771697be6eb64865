package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/corpus"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

func runReindex(ctx context.Context, e *env, args []string) error {
	fs, lf, ef := embedFlagSet("reindex", "--embedder NAME [--embed-model M] [--embed-url URL] [--dimensions N] | --discard | --store weaviate://…/Old --into weaviate://…/New --embedder NAME", e)
	discard := fs.Bool("discard", false, "throw away an interrupted reindex instead of resuming it")
	into := fs.String("into", "", "with --store weaviate://…: the new collection to build with the new embedder (weaviate://host:port/NewCollection)")
	lf.registerCollection(fs, e)
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if !*discard && !ef.set() {
		return errors.New("reindex needs the new embedder: --embedder hash|corpus|ollama|openai [--embed-model M] [--dimensions N]")
	}
	// The old embedder is not needed (it may be gone: an old hash model, a
	// server that no longer runs), so the query path is not loaded.
	return withLibrary(ctx, e, lf, append([]string{"reindex"}, args...), true, needStore, func(h *handle) error {
		return h.be.reindex(ctx, e, h, reindexFlags{lf: lf, ef: ef, into: *into, discard: *discard})
	})
}

// reindex re-embeds the library file in place, resuming an interrupted
// reindex; r.discard throws an interrupted one away.
func (fileBackend) reindex(ctx context.Context, e *env, h *handle, r reindexFlags) error {
	if r.into != "" {
		return errors.New("--into is for a Weaviate library (--store); a library file is reindexed in place")
	}
	if r.discard {
		return discardReindex(e, h.db)
	}
	meta, err := h.db.Meta()
	if err != nil {
		return err
	}
	if meta.Embedder == nil {
		return errors.New("the library is empty: choose the embedder with `mcpvec ingest --embedder ...` instead")
	}
	target, err := r.ef.reindexTarget(e)
	if err != nil {
		return err
	}
	if p, err := embedded.PendingReindex(h.db); err == nil && p == nil && target.Provider == corpus.Provider {
		defer hostReads(ctx, e, withQueryPath(ctx, e, h), "reindex")()
		return refitCorpus(ctx, e, h) // a fresh model on today's passages
	}
	emb, err := reindexEmbedder(ctx, e, h.db, target)
	if err != nil {
		return err
	}
	defer hostReads(ctx, e, withQueryPath(ctx, e, h), "reindex")()
	return reindexWith(ctx, e, h, emb)
}

// reindexWith runs the reindex to emb and, inside a server, swaps the
// served library for the reindexed one.
func reindexWith(ctx context.Context, e *env, h *handle, emb embed.Embedder) error {
	id := emb.Identity()
	start := time.Now()
	opts, endLine := reindexOptions(e, id)
	n, err := embedded.Reindex(ctx, h.db, emb, id, opts)
	endLine()
	if err != nil {
		return failf("reindex stopped (rerun the same command to resume, or --discard): %w", err)
	}
	if st := e.forwarded; st != nil {
		// Searches in flight finish on the old library, which stays
		// consistent in memory.
		lib, err := embedded.Open(ctx, h.db, emb, libOptions(emb))
		if err != nil {
			return failf("reindexed, but reloading the server's indexes failed (restart it): %w", err)
		}
		st.setEmbedder(emb)
		st.live.Swap(reranked(lib, st.rerank))
	}
	h.emb = emb
	fmt.Fprintf(e.stdout, "reindexed %d passages with %s in %s%s\n", n, id, time.Since(start).Round(time.Millisecond), tokenNote(h))
	return nil
}

// withQueryPath loads the library's current query path into h for the
// reads hostReads serves during the reindex: searches answer from the old
// vectors until the reindex ends, as a server's do. Outside a server only;
// when the old embedder cannot be built (it may be gone), queries are
// lexical.
func withQueryPath(ctx context.Context, e *env, h *handle) *handle {
	if e.forwarded != nil {
		return h
	}
	var qe library.QueryEmbedder
	emb := h.emb
	if err := h.loadEmbedder(ctx, e); err == nil && h.emb != nil {
		qe, emb = h.emb, h.emb
	}
	if lib, err := embedded.Open(ctx, h.db, qe, libOptions(emb)); err == nil {
		h.lib = lib
	}
	return h
}

// reindexOptions reports the reindex's progress on stderr; endLine ends
// the progress line, if one was drawn.
func reindexOptions(e *env, id embed.Identity) (opts embedded.ReindexOptions, endLine func()) {
	size, par := embedBatching(e, id)
	var (
		mu    sync.Mutex
		drawn bool
		start time.Time
		first int
	)
	return embedded.ReindexOptions{
			Batch: size, Parallel: par,
			Resumed: func(staged, total int) {
				mu.Lock()
				defer mu.Unlock()
				if drawn {
					fmt.Fprintln(e.stderr)
					drawn = false
				}
				if staged > 0 {
					fmt.Fprintf(e.stderr, "%d of %d passages already embedded\n", staged, total)
				}
				start, first = time.Now(), staged
			},
			Progress: func(staged, total int) {
				mu.Lock()
				defer mu.Unlock()
				rate := float64(staged-first) / max(time.Since(start).Seconds(), 0.001)
				fmt.Fprintf(e.stderr, "\r\033[Kembedded %d/%d passages (%.0f/s)", staged, total, rate)
				drawn = true
			},
		}, func() {
			mu.Lock()
			defer mu.Unlock()
			if drawn {
				fmt.Fprintln(e.stderr)
				drawn = false
			}
		}
}

// reindexEmbedder builds the target embedder, resuming an interrupted
// reindex when the flags agree with it.
func reindexEmbedder(ctx context.Context, e *env, db *store.DB, target embed.Identity) (embed.Embedder, error) {
	p, err := embedded.PendingReindex(db)
	if err != nil {
		return nil, err
	}
	if p != nil {
		if !wants(target, *p) {
			return nil, fmt.Errorf("an interrupted reindex to %s exists: rerun it with the same flags to resume, or `mcpvec reindex --discard`", p)
		}
		if target.BaseURL != "" {
			p.BaseURL = target.BaseURL // the same model may have moved
		}
		target = *p
		fmt.Fprintf(e.stderr, "resuming the reindex to %s\n", p)
	}
	emb, err := newEmbedder(ctx, e, target, modelStore(db))
	if err != nil {
		return nil, fmt.Errorf("embedder: %w", err)
	}
	if id := emb.Identity(); p != nil && !id.Same(target) {
		return nil, fmt.Errorf("the embedder now gives %s, the interrupted reindex staged %s: `mcpvec reindex --discard` and start again", id, target)
	}
	return emb, nil
}

// wants reports whether flags asking for want are satisfied by have: the
// provider must match, model and dimensions only when given.
func wants(want, have embed.Identity) bool {
	return want.Provider == have.Provider &&
		(want.Model == "" || want.Model == have.Model) &&
		(want.Dimensions == 0 || want.Dimensions == have.Dimensions)
}

func discardReindex(e *env, db *store.DB) error {
	had, err := embedded.DiscardReindex(db)
	switch {
	case err != nil:
		return err
	case !had:
		fmt.Fprintln(e.stdout, "no interrupted reindex to discard")
	default:
		fmt.Fprintln(e.stdout, "discarded the interrupted reindex")
	}
	return nil
}

// reindexTarget returns the embedder identity the flags ask a reindex
// for; a model named for a provider that has one is refused.
func (f *embedFlags) reindexTarget(e *env) (embed.Identity, error) {
	target := f.identity(e)
	if target.Model != "" && embed.TraitsOf(target).OneModel {
		return target, errors.New("--embed-model is for --embedder ollama or openai (the offline embedder has one model)")
	}
	return target, nil
}

// embedBatching returns the batch size and parallelism of embedding for
// an embedder, as its traits prefer ($MCPVEC_EMBED_CONCURRENCY batches in
// flight, default 4).
func embedBatching(e *env, id embed.Identity) (size, par int) {
	return embed.TraitsOf(id).Batching(envInt(e, "MCPVEC_EMBED_CONCURRENCY", 4))
}
