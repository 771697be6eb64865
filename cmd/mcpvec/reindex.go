package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

// Reindexing stages new vectors in an aux bucket, one committed batch (one
// embeddings request) at a time, so an interrupted run resumes where it
// stopped and pays for nothing twice. The switch — every vector replaced,
// the embedder identity changed and a freshly built vector index saved — is
// one transaction; until then the old vectors and index keep serving.
const (
	reindexBucket  = "reindex-vectors"
	reindexSetting = "reindex-target"
)

// errUnstaged means passages were added while the reindex ran; staging
// again picks them up.
var errUnstaged = errors.New("passages without a staged vector")

func runReindex(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("reindex", "--embedder NAME [--embed-model M] [--embed-url URL] [--dimensions N] | --discard", e)
	var lf libFlags
	var ef embedFlags
	lf.register(fs)
	ef.register(fs, e)
	discard := fs.Bool("discard", false, "throw away an interrupted reindex instead of resuming it")
	if _, st, ok := parseFlags(fs, args, e); !ok {
		return st
	}
	if !*discard && !ef.set() {
		return errorf(e, "reindex needs the new embedder: --embedder hash|openai [--embed-model M] [--dimensions N]")
	}
	// The old embedder is not needed (it may be gone: an old hash model, a
	// server that no longer runs), so the query path is not loaded.
	h, st := openOrForward(ctx, e, &lf, "reindex", args, true, false)
	if h == nil {
		return st
	}
	defer h.close()
	if *discard {
		return discardReindex(e, h.db)
	}
	meta, err := h.db.Meta()
	if err != nil {
		return errorf(e, "%v", err)
	}
	if meta.Embedder == nil {
		return errorf(e, "the library is empty: choose the embedder with `mcpvec ingest --embedder ...` instead")
	}
	target := ef.identity(e)
	if target.Provider == "hash" && target.Model != "" {
		return errorf(e, "--embed-model is for --embedder openai (the offline embedder has one model)")
	}
	emb, err := reindexEmbedder(ctx, e, h.db, target)
	if err != nil {
		return errorf(e, "%v", err)
	}
	id := identityOf(emb)
	start := time.Now()
	n, err := stageAndSwitch(ctx, e, h.db, emb, id)
	if err != nil {
		return errorf(e, "%v", err)
	}
	if st := e.forwarded; st != nil {
		// Swap the running server over; searches in flight finish on the
		// old library, which stays consistent in memory.
		lib, err := library.Open(ctx, h.db, emb, libOptions(emb))
		if err != nil {
			return errorf(e, "reindexed, but reloading the server's indexes failed (restart it): %v", err)
		}
		st.emb, st.lib = emb, lib
	}
	h.emb = emb
	fmt.Fprintf(e.stdout, "reindexed %d passages with %s in %s%s\n", n, id, time.Since(start).Round(time.Millisecond), tokenNote(h))
	return 0
}

// reindexEmbedder builds the target embedder, resuming an interrupted
// reindex when the flags agree with it, and records the target.
func reindexEmbedder(ctx context.Context, e *env, db *store.DB, target store.EmbedderInfo) (embed.Embedder, error) {
	prevRaw, err := db.Setting(reindexSetting)
	resuming := err == nil
	if resuming {
		var p store.EmbedderInfo
		if err := json.Unmarshal(prevRaw, &p); err != nil || !wants(target, p) {
			return nil, fmt.Errorf("an interrupted reindex to %s exists: rerun it with the same flags to resume, or `mcpvec reindex --discard`", p)
		}
		if target.BaseURL != "" {
			p.BaseURL = target.BaseURL // the same model may have moved
		}
		target = p
		fmt.Fprintf(e.stderr, "resuming the reindex to %s\n", p)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	emb, err := newEmbedder(ctx, e, target)
	if err != nil {
		return nil, fmt.Errorf("embedder: %w", err)
	}
	id := identityOf(emb)
	if resuming && !id.Same(target) {
		return nil, fmt.Errorf("the embedder now gives %s, the interrupted reindex staged %s: `mcpvec reindex --discard` and start again", id, target)
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	if err := db.PutSetting(reindexSetting, raw); err != nil {
		return nil, err
	}
	return emb, nil
}

// wants reports whether flags asking for want are satisfied by have: the
// provider must match, model and dimensions only when given.
func wants(want, have store.EmbedderInfo) bool {
	return want.Provider == have.Provider &&
		(want.Model == "" || want.Model == have.Model) &&
		(want.Dimensions == 0 || want.Dimensions == have.Dimensions)
}

func discardReindex(e *env, db *store.DB) int {
	if _, err := db.Setting(reindexSetting); errors.Is(err, store.ErrNotFound) {
		fmt.Fprintln(e.stdout, "no interrupted reindex to discard")
		return 0
	}
	err := db.Update(func(tx *store.Tx) error {
		if err := tx.DropAux(reindexBucket); err != nil {
			return err
		}
		return tx.DeleteSetting(reindexSetting)
	})
	if err != nil {
		return errorf(e, "%v", err)
	}
	fmt.Fprintln(e.stdout, "discarded the interrupted reindex")
	return 0
}

// stageAndSwitch stages every passage's new vector, then switches. Passages
// added in between (a forwarded ingest) are staged in another round.
func stageAndSwitch(ctx context.Context, e *env, db *store.DB, emb embed.Embedder, id store.EmbedderInfo) (int, error) {
	for round := 0; ; round++ {
		n, err := stageVectors(ctx, e, db, emb, id)
		if err != nil {
			return 0, fmt.Errorf("reindex stopped (rerun the same command to resume, or --discard): %w", err)
		}
		err = switchVectors(db, id)
		if errors.Is(err, errUnstaged) && round < 3 {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reindex switch: %w", err)
		}
		return n, nil
	}
}

// stageVectors embeds every passage that has no staged vector yet, batches
// in parallel, each committed on arrival. It returns the number of
// passages.
func stageVectors(ctx context.Context, e *env, db *store.DB, emb embed.Embedder, id store.EmbedderInfo) (int, error) {
	var pending []uint64
	total := 0
	err := db.View(func(tx *store.Tx) error {
		kv, err := tx.Aux(reindexBucket)
		if err != nil {
			return err
		}
		for seq := range tx.ChunkTexts() {
			total++
			if kv.Get(seqBytes(seq)) == nil {
				pending = append(pending, seq)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if done := total - len(pending); done > 0 {
		fmt.Fprintf(e.stderr, "%d of %d passages already embedded\n", done, total)
	}
	var (
		mu    sync.Mutex
		doneN = total - len(pending)
		start = time.Now()
	)
	size, par := embedBatching(e, id)
	err = inBatches(ctx, pending, size, par, func(ctx context.Context, seqs []uint64) error {
		if err := stageBatch(ctx, db, emb, seqs); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		doneN += len(seqs)
		rate := float64(doneN-(total-len(pending))) / max(time.Since(start).Seconds(), 0.001)
		fmt.Fprintf(e.stderr, "\r\033[Kembedded %d/%d passages (%.0f/s)", doneN, total, rate)
		return nil
	})
	if len(pending) > 0 {
		fmt.Fprintln(e.stderr)
	}
	return total, err
}

// stageBatch embeds the passages seqs and commits their vectors.
func stageBatch(ctx context.Context, db *store.DB, emb embed.Embedder, seqs []uint64) error {
	chunks, err := db.Chunks(seqs)
	if err != nil {
		return err
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(seqs) {
		return fmt.Errorf("embedder returned %d vectors for %d passages", len(vecs), len(seqs))
	}
	return db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(reindexBucket)
		if err != nil {
			return err
		}
		for j, seq := range seqs {
			if err := kv.Put(seqBytes(seq), store.EncodeVector(vecs[j])); err != nil {
				return err
			}
		}
		return nil
	})
}

// inBatches calls fn on consecutive batches of items, par at a time. After
// the first error no new batch starts, but batches in flight finish (their
// work is paid for and kept). It returns the first error, else ctx's.
func inBatches[T any](ctx context.Context, items []T, size, par int, fn func(context.Context, []T) error) error {
	jobs := make(chan []T)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		failed   atomic.Bool
	)
	for range min(par, (len(items)+size-1)/size) {
		wg.Go(func() {
			for b := range jobs {
				if err := safeCall(ctx, b, fn); err != nil {
					once.Do(func() { firstErr = err })
					failed.Store(true)
				}
			}
		})
	}
feed:
	for i := 0; i < len(items) && !failed.Load(); i += size {
		select {
		case jobs <- items[i:min(len(items), i+size)]:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func safeCall[T any](ctx context.Context, b []T, fn func(context.Context, []T) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return fn(ctx, b)
}

// embedBatching returns how many passages to embed and commit together and
// how many such batches to keep in flight. A batch is one request of the
// OpenAI embedder (it sends up to 64 inputs per request to servers other
// than api.openai.com), so a kill loses at most the requests in flight.
func embedBatching(e *env, id store.EmbedderInfo) (size, par int) {
	par = envInt(e, "MCPVEC_EMBED_CONCURRENCY", 4)
	if par <= 0 {
		par = 4
	}
	switch {
	case id.Provider == "hash":
		return 1024, 1 // local and fast: few, large transactions
	case isOpenAIHost(id.BaseURL):
		return 256, par
	}
	return 64, par
}

func isOpenAIHost(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// switchVectors replaces every vector with its staged one, records the new
// embedder and saves a vector index built from the new vectors, in one
// transaction. It returns errUnstaged when a passage has no staged vector.
func switchVectors(db *store.DB, id store.EmbedderInfo) error {
	return db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(reindexBucket)
		if err != nil {
			return err
		}
		ix := index.New(id.Dimensions, index.DefaultConfig())
		for seq := range tx.ChunkTexts() {
			b := kv.Get(seqBytes(seq))
			if b == nil {
				return fmt.Errorf("passage %d: %w", seq, errUnstaged)
			}
			v := store.DecodeVector(nil, b)
			if err := tx.PutVector(seq, v); err != nil {
				return err
			}
			if err := ix.Add(seq, v); err != nil {
				return err
			}
		}
		if err := tx.SetEmbedder(id); err != nil {
			return err
		}
		if err := tx.DropAux(library.AuxVectors); err != nil {
			return err
		}
		vkv, err := tx.Aux(library.AuxVectors)
		if err != nil {
			return err
		}
		if err := ix.Save(vkv); err != nil {
			return err
		}
		// Cached ingest embeddings of the old identity are useless now.
		if err := tx.DropAux(ingest.EmbedCacheBucket); err != nil {
			return err
		}
		if err := tx.DropAux(reindexBucket); err != nil {
			return err
		}
		return tx.DeleteSetting(reindexSetting)
	})
}

func seqBytes(seq uint64) []byte {
	var k [8]byte
	for i := 7; i >= 0; i-- {
		k[i] = byte(seq)
		seq >>= 8
	}
	return k[:]
}

// cachedEmbedder wraps the library's embedder for an ingest so finished
// batches survive a kill (see ingest.EmbedCache). The offline hash embedder
// is not wrapped: recomputing is cheaper than a transaction per batch.
func cachedEmbedder(e *env, h *handle) (ingest.Embedder, *ingest.EmbedCache) {
	id := identityOf(h.emb)
	if id.Provider == "hash" {
		return h.emb, nil
	}
	size, par := embedBatching(e, id)
	c := ingest.NewEmbedCache(h.db, h.emb, id, &ingest.EmbedCacheOptions{Batch: size, Parallel: par})
	return c, c
}

// forgetOnWrite chains apply with dropping the stored passages' cache
// entries; a failure to drop them is only logged (it costs disk, not
// correctness, and the next clean run clears the cache).
func forgetOnWrite(apply func(store.PutResult) error, c *ingest.EmbedCache) func(store.PutResult) error {
	if c == nil {
		return apply
	}
	return func(res store.PutResult) error {
		if err := apply(res); err != nil {
			return err
		}
		if err := c.ForgetStored(res); err != nil {
			slog.Warn("could not drop cached embeddings", "err", err)
		}
		return nil
	}
}

// embedProgress adds embedding throughput to the ingest progress line it
// forwards to w. It relies on the line being redrawn with "\r\033[K" and no
// newline, as ingest's progress does.
type embedProgress struct {
	w     io.Writer
	cache *ingest.EmbedCache
	emb   embed.Embedder
	start time.Time
}

func (p *embedProgress) Write(b []byte) (int, error) {
	s := string(b)
	if len(s) > 4 && strings.HasPrefix(s, "\r\033[K") && !strings.HasSuffix(s, "\n") {
		st := p.cache.Stats()
		secs := max(time.Since(p.start).Seconds(), 0.001)
		s += fmt.Sprintf("  embedded %d (%.0f/s)", st.Embedded, float64(st.Embedded)/secs)
		if st.Cached > 0 {
			s += fmt.Sprintf(", %d resumed", st.Cached)
		}
		if u, ok := p.emb.(interface{ Usage() embed.Usage }); ok {
			s += fmt.Sprintf(", %.0f tokens/s", float64(u.Usage().Tokens())/secs)
		}
	}
	if _, err := io.WriteString(p.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}
