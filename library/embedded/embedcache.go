package embedded

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
	"golang.org/x/sync/errgroup"
)

// AuxEmbedCache is the store aux bucket that holds vectors embedded but not
// stored yet: passages of documents an ingest has not written, and the
// staged vectors of a reindex.
const AuxEmbedCache = "embed-cache"

// ErrEmbedCache is wrapped by errors about the cache itself (a short answer
// from the wrapped embedder, a recovered panic), as opposed to the wrapped
// embedder's own errors, which come back unchanged.
var ErrEmbedCache = errors.New("embed cache")

// EmbedCache wraps an Embedder so that embedding work survives a killed or
// failed ingest: every batch the wrapped embedder answers is committed to
// the AuxEmbedCache in its own small transaction, keyed by
// sha256(provider, model, dimensions, text), and later calls are served
// from it. It is safe for concurrent use.
//
// Entries are meant to be short-lived: Forget a document's passages once it is
// stored (Writes.Put does), and Clear after a run that left no file behind.
//
// Caveats:
//   - A kill loses only the requests in flight and batches answered but not
//     yet committed (milliseconds). Size batches to one request of the
//     wrapped embedder, or a failed request discards its siblings' answers.
//   - Entries are keyed by text, not by document: files sharing a passage
//     share its entry, and the first one stored forgets it.
//   - What is left after a failed or killed run is bounded by the passages
//     of the documents that did not finish, not by the library; it stays
//     until Clear (or until those documents are stored).
//   - Commits are extra write transactions (with fsync); for a local
//     embedder that is cheaper than the commit, do not wrap it.
type EmbedCache struct {
	db     *store.DB
	emb    library.Embedder
	id     embed.Identity
	prefix []byte
	opts   library.EmbedCacheOptions

	cached, embedded, batches atomic.Int64
}

// NewEmbedCache returns a caching wrapper around emb, whose identity is id
// (it must be the identity of the vectors emb returns: entries of another
// identity are never served).
func NewEmbedCache(db *store.DB, emb library.Embedder, id embed.Identity, opts *library.EmbedCacheOptions) *EmbedCache {
	var o library.EmbedCacheOptions
	if opts != nil {
		o = *opts
	}
	if o.Batch <= 0 {
		o.Batch = 256
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	prefix := []byte(id.Provider + "\x00" + id.Model + "\x00" + strconv.Itoa(id.Dimensions) + "\x00")
	return &EmbedCache{db: db, emb: emb, id: id, prefix: prefix, opts: o}
}

// Stats returns a snapshot of the counters. Safe for concurrent use.
func (c *EmbedCache) Stats() library.EmbedCacheStats {
	return library.EmbedCacheStats{Cached: c.cached.Load(), Embedded: c.embedded.Load(), Batches: c.batches.Load()}
}

func (c *EmbedCache) key(text string) []byte {
	h := sha256.New()
	h.Write(c.prefix)
	h.Write([]byte(text))
	return h.Sum(nil)
}

// Embed returns one vector per text, in order. Texts already in the cache
// are not sent again; the rest are embedded in batches of Options.Batch,
// Options.Parallel at a time, and each answered batch is committed before
// Embed returns. After the first failure no new batch starts, but batches
// in flight still finish and are kept, so a rerun pays only for the rest.
// Errors are the wrapped embedder's (with the batch's passage range as
// context), ctx's, or wrap ErrEmbedCache. A failure to write the cache is
// only logged: the vectors are still returned.
func (c *EmbedCache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][]byte, len(texts))
	for i, t := range texts {
		keys[i] = c.key(t)
	}
	if err := c.lookup(keys, out); err != nil {
		return nil, err
	}
	// Identical passages in one call are embedded once.
	var todo []int
	first := map[string]int{}
	var dups [][2]int // {index, index of the first with that key}
	for i, v := range out {
		if v != nil {
			c.cached.Add(1)
			continue
		}
		if j, ok := first[string(keys[i])]; ok {
			dups = append(dups, [2]int{i, j})
			continue
		}
		first[string(keys[i])] = i
		todo = append(todo, i)
	}
	if err := c.embedMissing(ctx, texts, keys, todo, out); err != nil {
		return nil, err
	}
	for _, d := range dups {
		out[d[0]] = out[d[1]]
	}
	return out, nil
}

// lookup fills out with the cached vectors of keys; entries of the wrong
// length (a corrupt record) count as missing.
func (c *EmbedCache) lookup(keys [][]byte, out [][]float32) error {
	err := c.inBucket(false, func(kv *store.Bucket) error {
		for i, k := range keys {
			if b := kv.Get(k); b != nil && len(b) == 4*c.id.Dimensions {
				out[i] = store.DecodeVector(nil, b)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read embed cache: %w", err)
	}
	return nil
}

// embedMissing embeds texts[todo] batch by batch, filling out. Answered
// batches go to one committer goroutine, which writes whatever has queued
// up in one transaction: the workers start their next request instead of
// waiting for the store, and concurrent batches share an fsync.
func (c *EmbedCache) embedMissing(ctx context.Context, texts []string, keys [][]byte, todo []int, out [][]float32) error {
	if len(todo) == 0 {
		return nil
	}
	answered := make(chan []int, c.opts.Parallel)
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		c.commitLoop(keys, out, answered)
	}()
	// After the first failure no new batch starts; batches in flight finish
	// and are kept (their context is not cancelled: they are paid for).
	var g errgroup.Group
	g.SetLimit(c.opts.Parallel)
	var failed atomic.Bool
	for i := 0; i < len(todo) && !failed.Load() && ctx.Err() == nil; i += c.opts.Batch {
		batch := todo[i:min(len(todo), i+c.opts.Batch)]
		g.Go(func() error {
			if err := c.batch(ctx, texts, batch, out); err != nil {
				failed.Store(true)
				return err
			}
			answered <- batch
			return nil
		})
	}
	firstErr := g.Wait()
	close(answered)
	<-committed
	if firstErr != nil {
		return firstErr
	}
	for _, i := range todo {
		if out[i] == nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("%w: passage %d left unembedded", ErrEmbedCache, i)
		}
	}
	return nil
}

// batch embeds the passages idx and puts their vectors in out.
func (c *EmbedCache) batch(ctx context.Context, texts []string, idx []int, out [][]float32) (err error) {
	defer func() {
		// It runs on its own goroutine: a panic in the wrapped embedder
		// would otherwise take the process down.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: recovered panic: %v", ErrEmbedCache, r)
		}
	}()
	in := make([]string, len(idx))
	for k, i := range idx {
		in[k] = texts[i]
	}
	vecs, err := c.emb.Embed(ctx, in)
	if err != nil {
		return fmt.Errorf("passages %d..%d: %w", idx[0], idx[len(idx)-1], err)
	}
	if len(vecs) != len(in) {
		return fmt.Errorf("%w: %d vectors for %d passages", ErrEmbedCache, len(vecs), len(in))
	}
	for k, i := range idx {
		out[i] = vecs[k]
	}
	c.embedded.Add(int64(len(idx)))
	return nil
}

// commitLoop writes answered batches to the cache until the channel is
// closed, each time all that has queued up in one transaction.
func (c *EmbedCache) commitLoop(keys [][]byte, out [][]float32, answered <-chan []int) {
	for first := range answered {
		group := [][]int{first}
	drain:
		for {
			select {
			case b, ok := <-answered:
				if !ok {
					break drain
				}
				group = append(group, b)
			default:
				break drain
			}
		}
		err := c.inBucket(true, func(kv *store.Bucket) error {
			for _, idx := range group {
				for _, i := range idx {
					if err := kv.Put(keys[i], store.EncodeVector(out[i])); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			// Losing the cache costs money on a rerun, not correctness.
			c.opts.Logger.Warn("could not save embeddings for resuming", "batches", len(group), "err", err)
			continue
		}
		n := c.batches.Add(int64(len(group)))
		if c.opts.Committed != nil {
			saved := 0
			for _, idx := range group {
				saved += len(idx)
			}
			c.opts.Committed(saved)
		}
		c.opts.Logger.Debug("embeddings saved for resuming", "batches", len(group), "committed", n)
	}
}

// Forget drops the cache entries of texts (e.g. the passages of a document
// that is now stored). Missing entries are not an error. Safe for
// concurrent use; errors come from the store.
func (c *EmbedCache) Forget(texts []string) error {
	if len(texts) == 0 {
		return nil
	}
	err := c.inBucket(true, func(kv *store.Bucket) error {
		for _, t := range texts {
			if err := kv.Delete(c.key(t)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget cached embeddings: %w", err)
	}
	return nil
}

// Clear drops every cache entry, of every identity. Call it after a run in
// which no file failed: nothing left in the cache can be needed then. An
// empty cache costs it a read transaction only, no write. Errors come from
// the store.
func (c *EmbedCache) Clear() error {
	empty := false
	if err := c.inBucket(false, func(kv *store.Bucket) error { empty = kv.Empty(); return nil }); err != nil {
		return fmt.Errorf("clear embed cache: %w", err)
	}
	if empty {
		return nil
	}
	if err := c.db.Update(func(tx *store.Tx) error { return tx.DropAux(AuxEmbedCache) }); err != nil {
		return fmt.Errorf("clear embed cache: %w", err)
	}
	return nil
}

// inBucket runs fn on the cache's bucket in a read transaction, or in a
// write transaction when write is set.
func (c *EmbedCache) inBucket(write bool, fn func(kv *store.Bucket) error) error {
	run := c.db.View
	if write {
		run = c.db.Update
	}
	return run(func(tx *store.Tx) error {
		kv, err := tx.Aux(AuxEmbedCache)
		if err != nil {
			return err
		}
		return fn(kv)
	})
}

// Len returns the number of cached vectors. Errors come from the store.
func (c *EmbedCache) Len() (int, error) {
	n := 0
	err := c.inBucket(false, func(kv *store.Bucket) error {
		return kv.ForEach(func(_, _ []byte) error { n++; return nil })
	})
	return n, err
}
