package library

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/store"
)

// embedded is the Backend of Open: the store holds documents, passages
// and vectors; the HNSW and BM25 indexes are in memory and persisted in the
// store's aux buckets AuxVectors and AuxLexical.
type embedded struct {
	db   *store.DB
	opts Options
	mu   sync.RWMutex // guards vec and dim, set by the first Apply with vectors
	dim  int
	vec  *index.Index
	lex  *lexical.Index
}

// openEmbedded loads the persisted indexes over db, reconciling them with
// the store, and persists any repair when the store is writable.
func openEmbedded(ctx context.Context, db *store.DB, opts Options) (*embedded, error) {
	meta, err := db.Meta()
	if err != nil {
		return nil, fmt.Errorf("read library meta: %w", err)
	}
	if opts.Index.Source == nil {
		// The index keeps int8 codes only and re-scores from the store.
		opts.Index.Source = &storeVectors{db}
	}
	l := &embedded{db: db, opts: opts}
	if meta.Embedder != nil {
		l.dim = meta.Embedder.Dimensions
	}
	start := time.Now()
	repaired := false
	err = db.View(func(tx *store.Tx) error {
		var err error
		repaired, err = l.load(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	opts.Logger.Debug("library indexes loaded", "passages", l.lex.Len(), "took", time.Since(start))
	if repaired {
		if err := l.Save(); err != nil && !errors.Is(err, store.ErrReadOnly) {
			return nil, err
		}
	}
	return l, nil
}

// load loads both indexes and reports whether either was repaired.
func (l *embedded) load(tx *store.Tx) (repaired bool, err error) {
	opts := l.opts
	kv, err := tx.Aux(AuxLexical)
	if err != nil {
		return false, err
	}
	start := time.Now()
	var lst lexical.LoadStats
	if l.lex, lst, err = lexical.Load(kv, opts.Lexical, tx.ChunkTexts()); err != nil {
		return false, fmt.Errorf("load lexical index: %w", err)
	}
	repaired = lst.Tokenized > 0 || lst.Dropped > 0
	if repaired {
		opts.Logger.Info("lexical index reconciled with the store", "indexed", lst.Tokenized, "dropped", lst.Dropped)
	}
	opts.Logger.Debug("lexical index loaded", "took", time.Since(start))
	if l.dim == 0 {
		return repaired, nil
	}
	start = time.Now()
	if kv, err = tx.Aux(AuxVectors); err != nil {
		return false, err
	}
	var vst index.LoadStats
	if l.vec, vst, err = index.LoadSums(kv, l.dim, opts.Index, tx.VectorSums(), tx.ReadVectors); err != nil {
		return false, fmt.Errorf("load vector index: %w", err)
	}
	opts.Logger.Debug("vector index loaded", "took", time.Since(start), "read", vst.Read)
	repaired = repaired || vst.Inserted > 0 || vst.Removed > 0 || vst.Rebuilt || vst.Read > 0 || vst.Upgraded
	if vst.Inserted > 0 || vst.Removed > 0 {
		opts.Logger.Info("vector index reconciled with the store", "inserted", vst.Inserted, "removed", vst.Removed)
	}
	if vst.Upgraded || (vst.Read > 0 && !vst.Rebuilt) {
		opts.Logger.Info("vector index codes read from the stored vectors", "read", vst.Read, "format upgraded", vst.Upgraded)
	}
	if vst.Reason != nil {
		opts.Logger.Warn("vector index rebuilt from the stored vectors", "reason", vst.Reason)
	}
	return repaired, nil
}

// storeVectors is the vector index's Source: it reads the vectors to
// re-score from the store, in one short read transaction per search.
type storeVectors struct{ db *store.DB }

func (s *storeVectors) Vectors(ids []uint64, fn func(i int, vec []float32)) error {
	return s.db.ReadVectors(ids, fn)
}

// Apply brings the in-memory indexes up to date after a store write: it
// removes the removed passages and indexes the added ones. Call Save to
// persist.
func (l *embedded) Apply(res store.PutResult) error {
	vec := l.vectors()
	for _, s := range res.Removed {
		l.lex.Delete(s)
		if vec != nil {
			vec.Delete(s)
		}
	}
	if len(res.Added) == 0 {
		return nil
	}
	chunks, err := l.db.Chunks(res.Added)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	vecs := make([][]float32, len(res.Added))
	err = l.db.View(func(tx *store.Tx) error {
		for i, s := range res.Added {
			vecs[i] = tx.Vector(s)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if vec == nil && len(vecs[0]) > 0 {
		l.mu.Lock()
		if l.vec == nil {
			l.dim = len(vecs[0])
			l.vec = index.New(l.dim, l.opts.Index)
		}
		vec = l.vec
		l.mu.Unlock()
	}
	for i, c := range chunks {
		l.lex.Add(c.Seq, c.IndexText())
		if vecs[i] != nil {
			if err := vec.Add(c.Seq, vecs[i]); err != nil {
				return fmt.Errorf("apply: index passage %s: %w", c.ID(), err)
			}
		}
	}
	return nil
}

// Save persists what changed in the indexes since the last Save or Open, in
// one transaction.
func (l *embedded) Save() error {
	return l.db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(AuxLexical)
		if err != nil {
			return err
		}
		if err := l.lex.Save(kv); err != nil {
			return fmt.Errorf("save lexical index: %w", err)
		}
		vec := l.vectors()
		if vec == nil {
			return nil
		}
		if kv, err = tx.Aux(AuxVectors); err != nil {
			return err
		}
		if err := vec.Save(kv); err != nil {
			return fmt.Errorf("save vector index: %w", err)
		}
		return nil
	})
}

// Counts reports the sizes of the in-memory indexes.
func (l *embedded) Counts() IndexStats {
	l.mu.RLock()
	defer l.mu.RUnlock()
	st := IndexStats{LexicalPassages: l.lex.Len(), Dimensions: l.dim}
	if l.vec != nil {
		st.VectorPassages = l.vec.Len()
	}
	return st
}

// vectors returns the vector index, nil before the library has vectors.
func (l *embedded) vectors() *index.Index {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.vec
}
