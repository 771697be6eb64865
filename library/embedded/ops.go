package embedded

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/store"
)

// Put stores the document in one transaction and indexes its passages
// from chunks and vecs, as handed (PutDocument numbers chunks in the order
// of res.Added): nothing just written is read back.
func (l *Backend) Put(ctx context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error) {
	res, err := l.db.PutDocument(doc, chunks, vecs, original)
	if err != nil {
		return res, err
	}
	l.live.wrote(l.lexicalInPlace)
	if err := l.apply(res, &handed{chunks, vecs}); err != nil {
		return res, err
	}
	l.mark.applied(res.Generation)
	return res, nil
}

// PutBatch stores the documents in one transaction (store.DB.PutDocuments)
// and then indexes each as Put does; nothing is indexed when the
// transaction fails.
func (l *Backend) PutBatch(ctx context.Context, items []store.PutItem) ([]store.PutResult, error) {
	results, err := l.db.PutDocuments(items)
	if err != nil {
		return nil, err
	}
	for i, res := range results {
		l.live.wrote(l.lexicalInPlace) // counted per document: the pin is renewed at least once a group of 16
		if err := l.apply(res, &handed{items[i].Chunks, items[i].Vectors}); err != nil {
			return results, err
		}
		l.mark.applied(res.Generation)
	}
	return results, nil
}

// Delete removes the document from the store and the indexes.
func (l *Backend) Delete(ctx context.Context, id string) ([]uint64, error) {
	res, err := l.db.RemoveDocument(id)
	if err != nil {
		return nil, err
	}
	return res.Removed, l.Apply(ctx, res)
}

// Document returns a document with its text (read from the store), or its
// record without text (through the cache; shared, not to be modified).
func (l *Backend) Document(_ context.Context, id string, text bool) (*store.Document, error) {
	if text {
		return l.db.Document(id)
	}
	return l.docs.get(id, l.db.DocumentInfo)
}

// Documents, TitlePage, AllRows, RowsVersion, DocumentByPath, Chunks and Original read the store as
// OpenDocuments' backend does.
func (l *Backend) Documents(ctx context.Context) ([]*store.Document, error) {
	return docsOnly{l.db}.Documents(ctx)
}
func (l *Backend) TitlePage(ctx context.Context, from, n int, desc bool) (store.RowPage, bool, error) {
	return docsOnly{l.db}.TitlePage(ctx, from, n, desc)
}
func (l *Backend) AllRows(ctx context.Context) (store.RowPage, bool, error) {
	return docsOnly{l.db}.AllRows(ctx)
}
func (l *Backend) RowsVersion(ctx context.Context) (uint64, bool, error) {
	return docsOnly{l.db}.RowsVersion(ctx)
}
func (l *Backend) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	return docsOnly{l.db}.DocumentByPath(ctx, path)
}
func (l *Backend) Chunks(ctx context.Context, seqs []uint64) ([]*store.Chunk, error) {
	return docsOnly{l.db}.Chunks(ctx, seqs)
}
func (l *Backend) Original(ctx context.Context, id string) (io.ReadSeeker, int64, time.Time, error) {
	return docsOnly{l.db}.Original(ctx, id)
}

// ReleaseMapped releases the store's mapped pages (MappedReleaser).
func (l *Backend) ReleaseMapped() error { return l.db.ReleaseMapped() }

// LexicalPrefix reports that BM25's list is a total order (PrefixRanker).
func (l *Backend) LexicalPrefix() bool { return true }

// Fold folds BM25's records into a new segment when there are more than a
// few (lexical.Index.Fold), then saves (Folder).
func (l *Backend) Fold(ctx context.Context) error {
	l.lex.Fold()
	return l.Save(ctx)
}

// EmbedCache wraps emb in a cache kept in the store's aux bucket
// AuxEmbedCache (EmbedCacher).
func (l *Backend) EmbedCache(emb library.Embedder, id embed.Identity, opts library.EmbedCacheOptions) library.CachingEmbedder {
	return NewEmbedCache(l.db, emb, id, &opts)
}

// Candidates searches BM25 and, when q has a vector, HNSW; the Library
// fuses the two lists. Each search waits for a turn (Options.Concurrency);
// a second ranking (q.Again), which waited for its first, takes one of a
// gate of its own instead of queueing behind first rankings again.
func (l *Backend) Candidates(ctx context.Context, q library.Query) (library.Candidates, error) {
	var c library.Candidates
	var seeds []uint64
	run := l.turn.run
	if q.Again {
		run = l.again.run
	}
	if q.Mode == library.Lexical || q.Mode == library.Hybrid {
		var lerr error
		if err := run(ctx, func() { c.Lexical, seeds, lerr = l.lexical(q) }); err != nil {
			return c, err
		}
		if lerr != nil {
			return c, lerr
		}
	}
	if q.Vector == nil || (q.Mode != library.Vector && q.Mode != library.Hybrid) {
		return c, nil
	}
	vec, err := l.waitVectors(ctx)
	if err != nil || vec == nil {
		return c, err
	}
	var rs []vector.Result
	if werr := run(ctx, func() { rs, err = vec.SearchFiltered(q.Vector, q.N, seeds, vecFilter(q.Filter)) }); werr != nil {
		return c, werr
	}
	if err != nil {
		return c, fmt.Errorf("vector search: %w", err)
	}
	c.Vector = make([]library.Hit, 0, len(rs))
	for _, r := range rs {
		c.Vector = append(c.Vector, library.Hit{Seq: r.ID, Score: float64(r.Score)})
	}
	return c, nil
}

// Check applies the consistency rule to the store and the in-memory
// indexes.
func (l *Backend) Check(ctx context.Context) (library.Health, error) {
	var h library.Health
	var err error
	if h.Stats, err = l.db.Stats(); err != nil {
		return h, err
	}
	if h.Meta, err = l.db.Meta(); err != nil {
		return h, err
	}
	h.Index = l.Counts(ctx)
	h.Problems = l.db.Check()
	n := h.Stats.Chunks
	h.Consistent = h.Problems == nil && n == h.Stats.Vectors && h.Index.LexicalPassages == n &&
		(h.Meta.Embedder == nil || h.Index.VectorPassages == n)
	return h, nil
}

// Overview is Check with the store's counts read from its totals record
// and without its record-by-record check, and without loading a vector
// index Open deferred (LoadedCounts): at a million passages 0.8 s where
// loading the vector index took 2.6 s and 2 GB, and Check 22 s. A library
// without the record is counted by a walk.
//
// A write is stored before its passages reach the indexes (Put: PutDocument,
// then Apply), so counts read in between differ by that write. A reading
// is settled when the store's write generation did not move while it read
// and every write up to it was in the indexes before and after
// (genMark); an unsettled one is taken again every overviewRetry, and so
// is an inconsistent one, for up to overviewWait. A settled inconsistent
// reading that lasts is reported; when writes kept landing throughout (a
// library being written, e.g. `mcpvec info` answered by a running ingest:
// unsettled to the end, the store's generation moving), the last reading
// comes back with Writing set. A damaged library costs overviewWait more.
func (l *Backend) Overview(ctx context.Context) (library.Health, error) {
	deadline := time.Now().Add(overviewWait)
	var first uint64
	for i := 0; ; i++ {
		h, settled, moved, err := l.overviewOnce()
		if err != nil || settled && h.Consistent {
			return h, err
		}
		if i == 0 {
			first = h.Stats.Generation
		}
		// Writes kept landing: unsettled, and the store or the indexes
		// moved on, during this reading (one reading may outlast the wait
		// on a loaded host) or since the first. A mark stuck behind a
		// write that never reached the indexes is no write landing.
		h.Writing = !settled && (moved || h.Stats.Generation != first)
		if time.Now().After(deadline) {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return h, nil
		case <-time.After(overviewRetry):
		}
	}
}

// overviewWait bounds how long Overview waits for a write in flight to
// reach the indexes; overviewRetry is how often it looks again.
const (
	overviewWait  = 200 * time.Millisecond
	overviewRetry = 2 * time.Millisecond
)

// overviewOnce is one reading of Overview, whether it is settled (see
// there), and whether a write landed in the store or the indexes while it
// read. A library without a totals record has no generation to read: its
// readings count as settled.
func (l *Backend) overviewOnce() (h library.Health, settled, moved bool, err error) {
	before := l.mark.upTo()
	st, ok, err := l.db.Counts()
	if err != nil {
		return h, false, false, err
	}
	if !ok {
		if st, err = l.db.Stats(); err != nil {
			return h, false, false, err
		}
	}
	h.Stats = st
	if h.Meta, err = l.db.Meta(); err != nil {
		return h, false, false, err
	}
	h.Index = l.LoadedCounts()
	settled = !ok
	if ok {
		var now uint64
		if err := l.db.View(func(tx *store.Tx) error { now, _ = tx.Generation(); return nil }); err != nil {
			return h, false, false, err
		}
		after := l.mark.upTo()
		settled = now == st.Generation && before == now && after == now
		moved = now != st.Generation || after != before
	}
	n := st.Chunks
	h.Consistent = n == st.Vectors && h.Index.LexicalPassages == n &&
		(h.Meta.Embedder == nil || h.Index.VectorsDeferred || h.Index.VectorPassages == n)
	return h, settled, moved, nil
}

// LoadedCounts is Counts without starting or waiting for a vector load
// Open deferred (LoadedCounter): while it has not ended VectorsDeferred is
// set and VectorPassages 0. After a failed load it is Counts: no vectors
// indexed.
func (l *Backend) LoadedCounts() library.IndexStats {
	d := l.pending()
	if d == nil || isClosed(d.done) {
		return l.Counts(context.Background()) // loaded: does not wait
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return library.IndexStats{LexicalPassages: l.lex.Len(), Dimensions: l.dim, VectorsDeferred: true, LexicalRebuilt: l.lexRebuilt}
}

// lexical returns BM25's q.N best and, for a hybrid search with a vector,
// the first Options.VectorSeeds of its list as the graph's seeds. A vector
// search is not seeded: BM25 would cost it more than raising ef buys
// (BenchmarkRecallRealLibrary). BM25 may read its segment in place, in the
// file's mapped pages: a fault there is an error matching store.ErrCorrupt.
func (l *Backend) lexical(q library.Query) ([]library.Hit, []uint64, error) {
	n, seeded := q.N, q.Mode == library.Hybrid && q.Vector != nil && l.opts.VectorSeeds > 0
	if seeded {
		// BM25's order is total: its n best begin with its q.N best.
		n = max(n, l.opts.VectorSeeds)
	}
	var rs []lexical.Result
	err := l.db.GuardFaults(func() {
		rs = l.lex.SearchQueryIn(q.Text, q.Tokens, n, lexFilter(q.Filter))
	})
	if err != nil {
		return nil, nil, fmt.Errorf("lexical search: %w", err)
	}
	var seeds []uint64
	if seeded {
		seeds = make([]uint64, 0, min(len(rs), l.opts.VectorSeeds))
		for _, r := range rs[:cap(seeds)] {
			seeds = append(seeds, r.ID)
		}
	}
	rs = rs[:min(len(rs), q.N)]
	hits := make([]library.Hit, 0, len(rs))
	for _, r := range rs {
		hits = append(hits, library.Hit{Seq: r.ID, Score: float64(r.Score)})
	}
	return hits, seeds, nil
}

// ViewChunks lends the passages seqs (store.DB.ViewChunks); embedded is a
// ChunkLender.
func (l *Backend) ViewChunks(_ context.Context, seqs []uint64, fn func(i int, c *store.Chunk) bool) error {
	return l.db.ViewChunks(seqs, fn)
}

// Move changes the document's path in one transaction and drops a
// displaced document's passages from the indexes.
func (l *Backend) Move(ctx context.Context, id, path, sourceURL string, modTime time.Time) (store.PutResult, error) {
	res, err := l.db.MoveDocument(id, path, sourceURL, modTime)
	if err != nil {
		return res, err
	}
	return res, l.Apply(ctx, res)
}

// lexFilter and vecFilter hand a query's filter to the indexes: nil stays
// an untyped nil (no filter), not an interface holding a nil pointer.
func lexFilter(f *library.Filter) lexical.Filter {
	if f == nil {
		return nil
	}
	return f
}

func vecFilter(f *library.Filter) vector.Filter {
	if f == nil {
		return nil
	}
	return f
}

// DocumentsVersion changes with every write (library.DocumentsVersioner):
// it is the store's write generation, which every transaction that adds or
// removes passages advances, whichever process or path committed it (a
// forwarded import writes through the store alone), plus the writes this
// backend applied, which also counts a move that replaced nothing. Both
// only grow, so their sum changes when either does. It reads one record
// in a short read transaction; on a store error it counts the applied
// writes alone. It is safe for concurrent use.
func (l *Backend) DocumentsVersion() uint64 {
	v := l.docs.version()
	if t, ok, err := l.db.Totals(); err == nil && ok {
		v += t.Generation
	}
	return v
}
