package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/corpus"
	"github.com/mcpvec/mcpvec/store"
)

// Offline corpus vectors (--embedder corpus): a library asking for them is
// built with the offline embedder and searched lexically until it holds
// corpusMinPassages passages; the ingest that reaches them fits the model
// on the stored passages and re-embeds every passage. Later ingests fold
// new passages in, and refit when the vocabulary drifted.
const (
	// corpusMinPassages: below this a model has too little text to learn
	// which words go together (SciFact's 6,000 passages fit well, the
	// 1,457 of Cranfield still help).
	corpusMinPassages = 2000
	// corpusMaxUnknown: an ingest whose passages' term occurrences are more
	// than this share outside the model's vocabulary refits it.
	corpusMaxUnknown = 0.30
	// corpusWantedSetting marks a library built for corpus vectors that
	// has no model yet.
	corpusWantedSetting = "corpus-wanted"
	// corpusModelsBucket is the aux bucket holding the models by name.
	corpusModelsBucket = "corpus-models"
)

// dbModels keeps corpus models in the library file (embed.ModelStore).
type dbModels struct{ db *store.DB }

// modelStore returns db's model store, nil when the library is not a file.
func modelStore(db *store.DB) embed.ModelStore {
	if db == nil {
		return nil
	}
	return dbModels{db}
}

func (m dbModels) LoadModel(name string) ([]byte, error) {
	var out []byte
	err := m.db.View(func(tx *store.Tx) error {
		b, err := tx.Aux(corpusModelsBucket)
		if err != nil {
			return err
		}
		if v := b.Get([]byte(name)); v != nil {
			out = append([]byte(nil), v...)
		}
		return nil
	})
	if err == nil && out == nil {
		err = embed.ErrNoModel
	}
	return out, err
}

func (m dbModels) SaveModel(name string, model []byte) error {
	return m.db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux(corpusModelsBucket)
		if err != nil {
			return err
		}
		return b.Put([]byte(name), model)
	})
}

func (m dbModels) DeleteModel(name string) error {
	return m.db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux(corpusModelsBucket)
		if err != nil {
			return err
		}
		return b.Delete([]byte(name))
	})
}

// corpusWanted reports whether the library was asked for corpus vectors
// and has no model yet.
func corpusWanted(db *store.DB) bool {
	if db == nil {
		return false
	}
	_, err := db.Setting(corpusWantedSetting)
	return err == nil
}

// startCorpus records that a new library wants corpus vectors and returns
// the identity it is built with meanwhile: the offline embedder's.
func startCorpus(h *handle) (embed.Identity, error) {
	if h.db == nil {
		return embed.Identity{}, errors.New("--embedder corpus needs a library file (its model is kept in it)")
	}
	return embed.Identity{Provider: embed.HashProvider}, h.db.PutSetting(corpusWantedSetting, []byte("1"))
}

// afterIngest fits the corpus model once a library that wants one has
// enough passages, or refits it when the library doubled since the fit or
// the ingest's passages were mostly outside its vocabulary; it says what
// it does on stderr.
func afterIngest(ctx context.Context, e *env, h *handle) error {
	emb, isCorpus := h.emb.(*corpus.Embedder)
	if h.db == nil || !isCorpus && !corpusWanted(h.db) {
		return nil
	}
	st, err := h.db.Stats()
	if err != nil {
		return err
	}
	if !isCorpus {
		if st.Chunks < corpusMinPassages {
			fmt.Fprintf(e.stderr, "corpus vectors: %d of %d passages; search stays lexical until then\n", st.Chunks, corpusMinPassages)
			return nil
		}
		fmt.Fprintf(e.stderr, "corpus vectors: fitting the model on %d passages\n", st.Chunks)
		return refitCorpus(ctx, e, h)
	}
	_, fitted := emb.Model().Fitted()
	unknown, terms := emb.Unknown()
	switch {
	case st.Chunks >= 2*fitted && st.Chunks >= corpusMinPassages:
		fmt.Fprintf(e.stderr, "corpus vectors: the library grew from %d to %d passages since the fit; refitting\n", fitted, st.Chunks)
	case terms > 0 && unknown > corpusMaxUnknown:
		fmt.Fprintf(e.stderr, "corpus vectors: %.0f%% of the new passages' words are not in the model; refitting on %d passages\n", 100*unknown, st.Chunks)
	default:
		return nil
	}
	return refitCorpus(ctx, e, h)
}

// refitCorpus fits a model on the library's passages, saves it and
// re-embeds every passage with it (reindexWith); the previous model is
// deleted once the library switched.
func refitCorpus(ctx context.Context, e *env, h *handle) error {
	emb, err := fitCorpus(ctx, e, h.db)
	if err != nil {
		return err
	}
	old := h.emb
	if err := reindexWith(ctx, e, h, emb); err != nil {
		return err
	}
	if err := h.db.Update(func(tx *store.Tx) error { return tx.DeleteSetting(corpusWantedSetting) }); err != nil {
		return err
	}
	if prev, ok := old.(*corpus.Embedder); ok && prev.Identity().Model != emb.Identity().Model {
		if err := modelStore(h.db).DeleteModel(prev.Identity().Model); err != nil {
			return err
		}
	}
	return h.reopenLib(ctx)
}

// fitCorpus fits the corpus model on db's passages (a sample of 100,000
// when there are more) and saves it in db.
func fitCorpus(ctx context.Context, e *env, db *store.DB) (*corpus.Embedder, error) {
	start := time.Now()
	var m *corpus.Model
	err := db.View(func(tx *store.Tx) error {
		var err error
		m, err = corpus.Fit(ctx, texts(tx.ChunkTexts()), corpus.DefaultConfig())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("fit the corpus model: %w", err)
	}
	if err := corpus.Save(modelStore(db), m); err != nil {
		return nil, err
	}
	sample, all := m.Fitted()
	fmt.Fprintf(e.stderr, "corpus vectors: fitted %d dimensions over %d terms on %d of %d passages in %s\n",
		m.Dims(), m.Terms(), sample, all, time.Since(start).Round(time.Millisecond))
	return corpus.New(m), nil
}

// texts yields the texts of a (seq, text) sequence.
func texts(s iter.Seq2[uint64, string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, t := range s {
			if !yield(t) {
				return
			}
		}
	}
}
