package embedded

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/store"
	"golang.org/x/sync/errgroup"
)

// Aux bucket names of the derived indexes in the store (see also
// AuxEmbedCache and AuxIndexed).
const (
	AuxVectors = "hnsw"
	AuxLexical = "lexical"
)

// Backend is the embedded library.Backend: the store holds documents,
// passages and vectors; the HNSW and BM25 indexes are in memory and
// persisted in the store's aux buckets AuxVectors and AuxLexical. Besides
// the seam it implements every optional capability of package library
// (Overviewer, Summarizer, ChunkLender, PrefixRanker, Mover, Folder,
// LoadedCounter, MappedReleaser, EmbedCacher). It is safe for concurrent
// use; the caller keeps ownership of the store (and closes it).
type Backend struct {
	db   *store.DB
	opts library.Options
	mu   sync.RWMutex // guards vec and dim, set by the first Apply with vectors, and lazy
	dim  int
	vec  *vector.Index
	lazy *deferredVectors // the vector index while Open's deferred load has not ended
	lex  *lexical.Index
	pin  *store.Pin // lex's read transaction, set when it reads in place (pinLexicalIndex)
	live livePin    // pin while the segment it reads is the file's (adopt.go)
	docs docCache   // records without text for the query path
	mark genMark    // the store generation the indexes reflect
	turn turns      // searches of the indexes running at once
	// again gates second rankings (Query.Again) apart from turn, so that
	// they do not queue behind first ones while the searches running at
	// once stay bounded: at most twice Options.Concurrency.
	again turns
	// retokenized: Open tokenised every passage again, the index having
	// been saved by older word rules (retokenizing) or its segment being
	// unusable.
	retokenized bool
	// lexRebuilt: why Open rebuilt the BM25 index, until a Save in Open
	// saved it (IndexStats.LexicalRebuilt). Set before Open returns.
	lexRebuilt string
}

var _ library.Backend = (*Backend)(nil)

// DropIndexes drops the persisted vector and lexical indexes from db, so
// that the next New rebuilds them from the stored passages and vectors
// (`mcpvec check --repair`). No Backend may be open on db. Errors are the
// store's.
func DropIndexes(db *store.DB) error {
	return db.Update(func(tx *store.Tx) error {
		if err := tx.DropAux(AuxVectors); err != nil {
			return err
		}
		return tx.DropAux(AuxLexical)
	})
}

// Open is New wrapped in a Library answering from the backend. emb may be
// nil, which restricts searches to lexical mode. Errors are New's.
func Open(ctx context.Context, db *store.DB, emb library.QueryEmbedder, opts library.Options) (*library.Library, error) {
	opts = options(db, opts)
	be, err := openEmbedded(ctx, db, opts)
	if err != nil {
		return nil, err
	}
	return library.New(be, emb, opts), nil
}

// New loads the persisted indexes over db, reconciling them with the
// store, and persists any repair when the store is writable. Of opts it
// reads Index (zero: the kind the recorded embedder's libraries use,
// library.OptionsFor), Lexical, Mode (a Lexical default defers the vector
// index's load), Concurrency, VectorSeeds, Logger and UseIDF (called with
// the loaded BM25 index's idf). Errors come from the store and from
// loading the indexes.
func New(ctx context.Context, db *store.DB, opts library.Options) (*Backend, error) {
	return openEmbedded(ctx, db, options(db, opts))
}

// options fills in opts' defaults for db: the kind of vector index follows
// the recorded embedder, as OptionsFor gives it. Opened as a graph, the
// offline embedder's Scan index was built into one vector by vector
// (`mcpvec check` at a million passages: 590 s, of which the check took 16).
func options(db *store.DB, opts library.Options) library.Options {
	if opts.Index == (vector.Config{}) {
		if meta, err := db.Meta(); err == nil && meta.Embedder != nil {
			opts.Index = indexConfigFor(embed.Identity(*meta.Embedder))
		}
	}
	return opts.WithDefaults()
}

// indexConfigFor is the vector index configuration of the libraries of an
// embedder (library.OptionsFor its traits, defaults filled in): what Open
// uses when the caller names none and what Reindex builds.
func indexConfigFor(id embed.Identity) vector.Config {
	return library.OptionsFor(embed.TraitsOf(id)).WithDefaults().Index
}

// openEmbedded loads the persisted indexes over db, reconciling them with
// the store, and persists any repair when the store is writable; opts has
// its defaults.
func openEmbedded(ctx context.Context, db *store.DB, opts library.Options) (*Backend, error) {
	meta, err := db.Meta()
	if err != nil {
		return nil, fmt.Errorf("read library meta: %w", err)
	}
	if opts.Index.Source == nil {
		// The index keeps int8 codes only and re-scores from the store.
		opts.Index.Source = &storeVectors{db}
	}
	l := &Backend{db: db, opts: opts, turn: newTurns(opts.Concurrency), again: newTurns(opts.Concurrency)}
	if meta.Embedder != nil {
		l.dim = meta.Embedder.Dimensions
	}
	start := time.Now()
	var gen uint64
	var synced bool
	if err := db.View(func(tx *store.Tx) (err error) { gen, synced, err = indexedGen(tx); return err }); err != nil {
		return nil, fmt.Errorf("read index generation: %w", err)
	}
	// The two indexes load in parallel, each in a read transaction of its
	// own. A write committed between the two (none is, while a command or
	// server opens its library) leaves a passage in one index only, which
	// the next open reconciles, as it does a write missed by both: the
	// generation read above is then older than the store's, and the next
	// open walks the passages.
	var lexRepaired, vecRepaired bool
	var g errgroup.Group
	g.Go(func() (err error) { lexRepaired, err = l.pinLexicalIndex(synced); return err })
	switch {
	case l.dim > 0 && synced && opts.Mode == library.Lexical:
		// Nothing to reconcile, and the default search does not use the
		// graph: load it when something needs it (deferred.go).
		l.lazy = newDeferredVectors()
	case l.dim > 0:
		g.Go(func() error {
			return db.View(func(tx *store.Tx) (err error) { l.vec, vecRepaired, err = l.readVectorIndex(tx); return err })
		})
	}
	if err := g.Wait(); err != nil {
		if l.pin != nil {
			l.pin.Release() // the index goes with the failed open
		}
		return nil, err
	}
	l.mark.start(gen)
	repaired := lexRepaired || vecRepaired
	opts.Logger.Debug("library indexes loaded", "passages", l.lex.Len(), "took", time.Since(start), "synced", synced, "vectors deferred", l.lazy != nil)
	if repaired || (gen > 0 && !synced) {
		if err := l.saveRepaired(ctx); err != nil {
			return nil, err
		}
	}
	if opts.UseIDF != nil {
		opts.UseIDF(l.lex.IDF)
	}
	return l, nil
}

// saveRepaired saves the indexes an open repaired or reconciled with the
// store. A read-only library keeps them for this command only (and says
// so when every passage was tokenised again); that is no error.
func (l *Backend) saveRepaired(ctx context.Context) error {
	err := l.Save(ctx)
	switch {
	case err == nil:
		l.lexRebuilt = "" // saved
	case !errors.Is(err, store.ErrReadOnly):
		return err
	case l.retokenized:
		l.opts.Logger.Info("the re-indexed words last for this command only, which opens the library read-only; the next command that writes to it (ingest, sync, serve) saves them")
	}
	return nil
}

// loadLexical loads the BM25 index, reconciled with the store by passage
// sequence number alone: a passage's text never changes under its sequence
// number, so only passages the index lacks are read and tokenised. When
// synced (the index was saved after the store's last write), the passages
// are the ones the index holds and their keys are not walked. It reports
// whether the index was repaired or asks to be rewritten.
func (l *Backend) loadLexical(tx *store.Tx, kv index.KV, synced bool) (repaired bool, err error) {
	opts := l.opts
	text := func(seq uint64) (string, error) {
		t, err := tx.ChunkText(seq)
		if errors.Is(err, store.ErrCorrupt) {
			opts.Logger.Warn("passage unreadable, indexed as empty", "seq", seq, "err", err)
			return "", nil
		}
		return t, err
	}
	text, l.retokenized = retokenizing(tx, kv, opts.Logger, text)
	load := lexical.LoadIDs
	if synced {
		load = lexical.LoadSynced
	}
	var lst lexical.LoadStats
	if l.lex, lst, err = load(kv, opts.Lexical, tx.ChunkSeqs(), text); err != nil {
		return false, fmt.Errorf("load lexical index: %w", err)
	}
	if lst.Reason != nil {
		opts.Logger.Warn("lexical index rebuilt from the store", "reason", lst.Reason)
		l.retokenized = true // done again at every read-only open until a write saves it
		l.lexRebuilt = lst.Reason.Error()
	}
	if lst.Tokenized > 0 || lst.Dropped > 0 {
		opts.Logger.Info("lexical index reconciled with the store", "indexed", lst.Tokenized, "dropped", lst.Dropped)
	}
	return lst.Tokenized > 0 || lst.Dropped > 0 || lst.Rewrite, nil
}

// pinLexicalIndex loads the BM25 index in a read transaction that it then
// keeps open (store.DB.Pin): the index reads its segment's posting lists
// and packed terms in place, in the file's pages, rather than copying them
// (lexical.InPlace): on a host where fresh memory is slow to touch that
// copy was most of an open
// (docs/benchmarks/startup-and-memory.md#segment-in-place). Before the store's
// next write the index copies them after all (lexical.Index.Detach); at
// Close it lets them go (Unload). The pin ends at once when the index
// reads nothing in place (no segment). It reports whether the index was
// repaired.
func (l *Backend) pinLexicalIndex(synced bool) (repaired bool, err error) {
	pin, err := l.db.Pin(func(tx *store.Tx) (err error) {
		repaired, err = l.loadLexicalIndex(tx, synced)
		return err
	}, l.evictLexical)
	if err != nil {
		return false, err
	}
	kept := l.lex.InPlaceBytes()
	if len(kept) == 0 {
		pin.Release()
		return repaired, nil
	}
	for _, b := range kept {
		pin.Keep(b) // ReleaseMapped leaves what searches read mapped
	}
	l.pin = pin
	return repaired, nil
}

// evictLexical is the BM25 index's pin's evict (store.DB.Pin): the index
// copies what it reads in place before a write, or lets it go at Close.
func (l *Backend) evictLexical(closing bool) {
	if closing {
		l.lex.Unload()
	} else {
		l.lex.Detach()
	}
}

// loadLexicalIndex loads the BM25 index in place in tx, which its caller
// keeps open (pinLexicalIndex), and reports whether it was repaired.
func (l *Backend) loadLexicalIndex(tx *store.Tx, synced bool) (repaired bool, err error) {
	kv, err := tx.Aux(AuxLexical)
	if err != nil {
		return false, err
	}
	start := time.Now()
	if repaired, err = l.loadLexical(tx, lexical.InPlace(kv), synced); err != nil {
		return false, err
	}
	l.opts.Logger.Debug("lexical index loaded", "took", time.Since(start))
	return repaired, nil
}

// readVectorIndex loads the vector index and reports whether it was
// repaired or needs saving (codes read from the vectors, format upgraded).
func (l *Backend) readVectorIndex(tx *store.Tx) (vec *vector.Index, repaired bool, err error) {
	opts := l.opts
	start := time.Now()
	kv, err := tx.Aux(AuxVectors)
	if err != nil {
		return nil, false, err
	}
	var vst vector.LoadStats
	if vec, vst, err = vector.LoadSums(kv, l.dim, opts.Index, tx.VectorSums(), tx.ReadVectors); err != nil {
		return nil, false, fmt.Errorf("load vector index: %w", err)
	}
	opts.Logger.Debug("vector index loaded", "took", time.Since(start), "read", vst.Read)
	repaired = vst.Inserted > 0 || vst.Removed > 0 || vst.Rebuilt || vst.Read > 0 || vst.Upgraded
	if vst.Inserted > 0 || vst.Removed > 0 {
		opts.Logger.Info("vector index reconciled with the store", "inserted", vst.Inserted, "removed", vst.Removed)
	}
	if vst.Upgraded || (vst.Read > 0 && !vst.Rebuilt) {
		opts.Logger.Info("vector index codes read from the stored vectors", "read", vst.Read, "format upgraded", vst.Upgraded)
	}
	if vst.Reason != nil {
		opts.Logger.Warn("vector index rebuilt from the stored vectors", "reason", vst.Reason)
	}
	return vec, repaired, nil
}

// storeVectors is the vector index's Source: it reads the vectors to
// re-score from the store, in one short read transaction per search.
type storeVectors struct{ db *store.DB }

func (s *storeVectors) Vectors(ids []uint64, fn func(i int, vec []float32)) error {
	return s.db.ReadVectors(ids, fn)
}

// Apply brings the in-memory indexes up to date after a store write: it
// removes the removed passages and indexes the added ones, read from the
// store. Call Save to persist.
func (l *Backend) Apply(ctx context.Context, res store.PutResult) error {
	if err := l.apply(res, nil); err != nil {
		return err
	}
	l.mark.applied(res.Generation)
	return nil
}

// readBack, set by tests, runs when passages a write added are read back
// from the store to be indexed.
var readBack func()

// handed is a write's passages and vectors as Put was handed them, in the
// order of its PutResult.Added.
type handed struct {
	chunks []store.Chunk
	vecs   [][]float32
}

// apply removes res's removed passages from the indexes and adds its added
// ones, from h, or when h is nil from the store.
func (l *Backend) apply(res store.PutResult, h *handed) error {
	l.docs.clear()
	for _, s := range res.Removed {
		l.lex.Delete(s)
	}
	if err := l.applyLexical(res.Added, h); err != nil {
		return err
	}
	if l.leaveVectors() || l.queueVectors(res) {
		return nil
	}
	var vecs [][]float32
	if h != nil {
		vecs = h.vecs
	}
	return l.applyVectors(l.vectors(), res, vecs)
}

// applyLexical adds the passages added to the BM25 index, their texts
// taken from h or, when h is nil, read from the store.
func (l *Backend) applyLexical(added []uint64, h *handed) error {
	if h != nil {
		for i, s := range added {
			l.lex.Add(s, h.chunks[i].IndexText())
		}
		return nil
	}
	if len(added) == 0 {
		return nil
	}
	if readBack != nil {
		readBack()
	}
	chunks, err := l.db.Chunks(added)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	for _, c := range chunks {
		l.lex.Add(c.Seq, c.IndexText())
	}
	return nil
}

// leaveVectors reports whether a write may leave the vector index as it is
// stored: a Scan index whose deferred load has not begun. Its records are
// int8 codes of the stored vectors, and LoadSums reconciles them with the
// store on every load (the vectors of passages added since are read and
// coded, removed ones dropped), so the write needs nothing of it. A write
// to a library opened by `mcpvec ingest FILE` or `mcpvec rm` then loads no
// vector index: at a million passages that was 1.6-2.3 s (3.5 s cold)
// and 1 GB of a one-file ingest. A graph index is not left behind: catching
// up would insert every passage added since into the graph at its next
// load. Once a load has begun, a write waits in its queue (queueVectors):
// a load that begins after this check reads the store after the write,
// which committed before Apply.
func (l *Backend) leaveVectors() bool {
	if !l.opts.Index.Scan {
		return false
	}
	d := l.pending()
	return d != nil && !d.begun.Load()
}

// applyVectors removes res's removed passages from vec and adds its added
// ones with vecs, their vectors in order, or when vecs is nil with their
// stored vectors (a passage without one, removed since, is skipped). vec
// nil means the library has no vector index yet: the first vectors create
// it.
func (l *Backend) applyVectors(vec *vector.Index, res store.PutResult, vecs [][]float32) error {
	if vec != nil {
		for _, s := range res.Removed {
			vec.Delete(s)
		}
	}
	if len(res.Added) == 0 {
		return nil
	}
	if vecs == nil {
		var err error
		if vecs, err = l.storedVectors(res.Added); err != nil {
			return err
		}
	}
	for i, s := range res.Added {
		if vecs[i] == nil {
			continue
		}
		if vec == nil {
			vec = l.createVectors(len(vecs[i]))
		}
		if err := vec.Add(s, vecs[i]); err != nil {
			return fmt.Errorf("apply: index passage %d: %w", s, err)
		}
	}
	return nil
}

// storedVectors reads the vectors of the passages seqs, nil for one the
// store does not hold.
func (l *Backend) storedVectors(seqs []uint64) ([][]float32, error) {
	if readBack != nil {
		readBack()
	}
	vecs := make([][]float32, len(seqs))
	err := l.db.View(func(tx *store.Tx) error {
		for i, s := range seqs {
			vecs[i] = tx.Vector(s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	return vecs, nil
}

// createVectors returns the vector index, made for dim dimensions if the
// library had none.
func (l *Backend) createVectors(dim int) *vector.Index {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.vec == nil {
		l.dim = dim
		l.vec = vector.New(l.dim, l.opts.Index)
	}
	return l.vec
}

// Counts reports the sizes of the in-memory indexes, loading a deferred
// vector index first (a failed load, or one ctx gave up waiting for,
// counts as none).
func (l *Backend) Counts(ctx context.Context) library.IndexStats {
	if _, err := l.waitVectors(ctx); err != nil {
		l.opts.Logger.Debug("index counts without the vector index", "err", err)
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	st := library.IndexStats{LexicalPassages: l.lex.Len(), Dimensions: l.dim, LexicalRebuilt: l.lexRebuilt}
	if l.vec != nil {
		st.VectorPassages = l.vec.Len()
	}
	return st
}

// vectors returns the vector index, nil before the library has vectors.
func (l *Backend) vectors() *vector.Index {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.vec
}
