package library

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// Writes is one ingest's write session on a Library and ingest's door to
// it (ingest.Library): the embedder to embed with (wrapped in an
// EmbedCache for network embedders), the lookups and the document writes
// ingest makes, and a periodic index save. Create it with
// BeginWrites and end it with Finish. Its methods are safe for concurrent
// use.
type Writes struct {
	lib   *Library
	emb   Embedder
	cache CachingEmbedder
	stop  func()
	group *group // documents held for a group commit (GroupCommits)
}

// BeginWrites starts a write session embedding with emb, whose identity is
// id, in batches of size, par at a time (embed.Traits.Batching gives the
// usual values). A local embedder (embed.Traits.Local, the offline one) is
// not wrapped in the cache: recomputing is cheaper than a transaction per
// batch, nor is anything for a backend that keeps no cache (EmbedCacher:
// the cache lives in the embedded store). The indexes are saved every
// saveEvery (0: never) until Finish.
func (l *Library) BeginWrites(ctx context.Context, emb Embedder, id embed.Identity, size, par int, saveEvery time.Duration) *Writes {
	w := &Writes{lib: l, emb: emb, stop: func() {}}
	if !embed.TraitsOf(id).Local && l.caps.cache != nil {
		w.cache = l.caps.cache.EmbedCache(emb, id, EmbedCacheOptions{Batch: size, Parallel: par, Logger: l.opts.Logger})
		w.emb = w.cache
	}
	if saveEvery > 0 {
		w.stop = l.saveEvery(ctx, saveEvery)
	}
	return w
}

// Embedder returns the embedder an ingest should use.
func (w *Writes) Embedder() Embedder { return w.emb }

// Cached reports the embed cache's counters, and false when there is no
// cache.
func (w *Writes) Cached() (EmbedCacheStats, bool) {
	if w.cache == nil {
		return EmbedCacheStats{}, false
	}
	return w.cache.Stats(), true
}

// DocumentByPath returns the document ingested from path, without its
// text, or an error wrapping store.ErrNotFound: ingest's lookup of a file
// already stored. Errors are the backend's.
func (w *Writes) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	if d := w.group.held(path, ""); d != nil {
		return d, nil
	}
	return w.lib.be.DocumentByPath(ctx, path)
}

// DocumentInfo returns document id without its text, or an error wrapping
// store.ErrNotFound: ingest's check for the same content at another path.
// The record may be shared: it must not be modified.
func (w *Writes) DocumentInfo(ctx context.Context, id string) (*store.Document, error) {
	if d := w.group.held("", id); d != nil {
		return d, nil
	}
	return w.lib.be.Document(ctx, id, false)
}

// Put stores a document with its passages, their vectors and its original
// bytes (nil: none) through the backend, which indexes them from what it
// is handed, and drops the passages' cache entries. A failure to drop them
// is only logged (it costs disk, not correctness, and the next clean run
// clears the cache). Errors are the backend's. With DocumentByPath and
// DocumentInfo it is ingest's door to the library (ingest.Library). With
// GroupCommits, a new document is held for a group commit instead.
func (w *Writes) Put(ctx context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error) {
	if w.group != nil {
		replaces, err := w.replaces(ctx, doc)
		if err != nil {
			return store.PutResult{}, err
		}
		if !replaces && len(chunks) == len(vecs) {
			w.hold(store.PutItem{Doc: doc, Chunks: chunks, Vectors: vecs, Original: original})
			return store.PutResult{}, nil
		}
		w.group.commit(ctx, w.lib.opts.Logger.Warn) // what came first is stored first
	}
	res, err := w.lib.be.Put(ctx, doc, chunks, vecs, original)
	if err != nil {
		return res, err
	}
	w.forget([]store.PutItem{{Chunks: chunks}})
	return res, nil
}

// forget drops the cache entries of the passages of items, which are
// stored; a failure is only logged.
func (w *Writes) forget(items []store.PutItem) {
	if w.cache == nil {
		return
	}
	var texts []string
	for _, it := range items {
		for _, c := range it.Chunks {
			texts = append(texts, c.IndexText())
		}
	}
	if err := w.cache.Forget(texts); err != nil {
		w.lib.opts.Logger.Warn("could not drop cached embeddings", "err", err)
	}
}

// Finish stops the periodic save, clears the embed cache when clean (every
// file is stored or unchanged: no cached vector is needed) and saves the
// indexes, folding BM25's records into a new segment when there are more
// than a few (Library.Fold). A caller ending a run that ctx cancelled,
// whose writes should still be saved, passes context.WithoutCancel(ctx).
// It first commits the documents held for a group commit
// (GroupCommits). Errors are Save's and those of the documents a group
// commit could not store; a failure to clear the cache is only logged.
func (w *Writes) Finish(ctx context.Context, clean bool) error {
	gerr := w.group.finish(ctx, w.lib.opts.Logger.Warn)
	if gerr != nil {
		clean = false // the cache keeps the vectors of what was not stored
	}
	w.stop()
	if w.cache != nil && clean {
		if err := w.cache.Clear(); err != nil {
			w.lib.opts.Logger.Warn("could not clear the embedding cache", "err", err)
		}
	}
	if err := w.lib.Fold(ctx); err != nil {
		return errors.Join(fmt.Errorf("save indexes: %w", err), storeErr(gerr))
	}
	return storeErr(gerr)
}

// storeErr wraps the errors of documents a group commit could not store.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store documents: %w", err)
}

// saveEvery persists the indexes periodically during a long write so a
// crash costs little re-indexing; the returned func stops it.
func (l *Library) saveEvery(ctx context.Context, d time.Duration) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := l.Save(ctx); err != nil {
					l.opts.Logger.Debug("periodic index save", "err", err)
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// Remove deletes the document id and its passages from the store and the
// in-memory indexes, returning the number of passages removed; call Save to
// persist the indexes. It returns ErrNotFound for an unknown id, otherwise
// the backend's errors (ctx's when it ends first, for a remote backend).
func (l *Library) Remove(ctx context.Context, id string) (int, error) {
	removed, err := l.be.Delete(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return 0, err
	}
	return len(removed), nil
}
