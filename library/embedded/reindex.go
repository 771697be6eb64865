package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/library"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// Reindexing stages the new vectors in the embed cache (AuxEmbedCache), one
// committed batch at a time, so an interrupted run resumes where it stopped
// and pays for nothing twice. The switch — every vector replaced, the
// embedder identity changed and a freshly built vector index saved — is one
// transaction; until then the old vectors and index keep serving.
const reindexSetting = "reindex-target"

// legacyReindexBucket held staged vectors before they went through the
// embed cache; a switch or discard drops what an old run left there.
const legacyReindexBucket = "reindex-vectors"

// ErrUnstaged means passages were added while a reindex staged vectors and
// are still without one after a few rounds.
var ErrUnstaged = errors.New("passages without a staged vector")

// ReindexOptions configures Reindex. Zero values mean the defaults.
type ReindexOptions struct {
	// Batch and Parallel size the embedding requests (see
	// EmbedCacheOptions; embed.Traits.Batching gives the usual values).
	Batch, Parallel int
	// Resumed, if set, is called once per staging round with the number of
	// passages already staged by an earlier run and the total.
	Resumed func(staged, total int)
	// Progress, if set, is called after each committed batch with the
	// passages staged so far and the total; calls are serialised.
	Progress func(staged, total int)
}

// PendingReindex returns the target of an interrupted reindex, or nil when
// there is none. Errors come from the store.
func PendingReindex(db *store.DB) (*embed.Identity, error) {
	raw, err := db.Setting(reindexSetting)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var id embed.Identity
	if err := json.Unmarshal(raw, &id); err != nil {
		return nil, fmt.Errorf("read reindex target: %w", err)
	}
	return &id, nil
}

// DiscardReindex forgets an interrupted reindex and its staged vectors. It
// reports whether there was one. Errors come from the store.
func DiscardReindex(db *store.DB) (bool, error) {
	if p, err := PendingReindex(db); err != nil || p == nil {
		return false, err
	}
	err := db.Update(func(tx *store.Tx) error {
		if err := dropStaged(tx); err != nil {
			return err
		}
		return tx.DeleteSetting(reindexSetting)
	})
	return err == nil, err
}

// Reindex embeds every passage of db with emb, whose vectors have identity
// id, and switches the library over to them. It records id as the pending
// target first, so an interrupted run can be resumed (PendingReindex) by
// calling Reindex again. Passages added meanwhile (a forwarded ingest) are
// staged in further rounds. It returns the number of passages. Errors are
// emb's, ctx's, the store's or wrap ErrUnstaged; a failed Reindex leaves the
// old vectors and indexes serving. A Library open on db must be reopened
// afterwards (the vector index was replaced underneath it).
func Reindex(ctx context.Context, db *store.DB, emb library.Embedder, id embed.Identity, opts ReindexOptions) (int, error) {
	raw, err := json.Marshal(id)
	if err != nil {
		return 0, err
	}
	if err := db.PutSetting(reindexSetting, raw); err != nil {
		return 0, err
	}
	for round := 0; ; round++ {
		n, err := stage(ctx, db, emb, id, opts)
		if err != nil {
			return 0, fmt.Errorf("stage vectors: %w", err)
		}
		err = switchVectors(db, id)
		if errors.Is(err, ErrUnstaged) && round < 3 {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("switch vectors: %w", err)
		}
		return n, nil
	}
}

// stage embeds every passage that has no staged vector yet through the
// embed cache, in slices so the texts of a large library are not all held
// at once. It returns the number of passages.
func stage(ctx context.Context, db *store.DB, emb library.Embedder, id embed.Identity, opts ReindexOptions) (int, error) {
	c := NewEmbedCache(db, emb, id, &library.EmbedCacheOptions{Batch: opts.Batch, Parallel: opts.Parallel})
	var seqs []uint64
	staged := 0
	err := db.View(func(tx *store.Tx) error {
		kv, err := tx.Aux(AuxEmbedCache)
		if err != nil {
			return err
		}
		for seq, text := range tx.ChunkTexts() {
			seqs = append(seqs, seq)
			if kv.Get(c.key(text)) != nil {
				staged++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	total := len(seqs)
	if opts.Resumed != nil {
		opts.Resumed(staged, total)
	}
	c.opts.Committed = func(n int) {
		staged += n
		if opts.Progress != nil {
			opts.Progress(staged, total)
		}
	}
	step := max(c.opts.Batch*c.opts.Parallel*4, 4096)
	for i := 0; i < len(seqs); i += step {
		texts, err := chunkTexts(db, seqs[i:min(len(seqs), i+step)])
		if err != nil {
			return 0, err
		}
		if _, err := c.Embed(ctx, texts); err != nil {
			return 0, err
		}
	}
	return total, nil
}

func chunkTexts(db *store.DB, seqs []uint64) ([]string, error) {
	chunks, err := db.Chunks(seqs)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(chunks))
	for i, ch := range chunks {
		texts[i] = ch.IndexText()
	}
	return texts, nil
}

// switchVectors replaces every vector with its staged one, records the new
// embedder and saves a vector index built from the new vectors, in one
// transaction; the embed cache is dropped with it (entries of the old
// identity are useless now). It returns ErrUnstaged when a passage has no
// staged vector.
func switchVectors(db *store.DB, id embed.Identity) error {
	c := NewEmbedCache(db, nil, id, nil)
	return db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(AuxEmbedCache)
		if err != nil {
			return err
		}
		// The index the new embedder's libraries open (OptionsFor): a
		// graph built for the offline embedder's Scan index would cost
		// minutes at a million passages, inside this transaction, for the
		// next open to drop.
		ix := vector.New(id.Dimensions, indexConfigFor(id))
		for seq, text := range tx.ChunkTexts() {
			b := kv.Get(c.key(text))
			if b == nil || len(b) != 4*id.Dimensions {
				return fmt.Errorf("passage %d: %w", seq, ErrUnstaged)
			}
			v := store.DecodeVector(nil, b)
			if err := tx.PutVector(seq, v); err != nil {
				return err
			}
			if err := ix.Add(seq, v); err != nil {
				return err
			}
		}
		if err := tx.SetEmbedder(store.EmbedderInfo(id)); err != nil {
			return err
		}
		if err := saveVectorIndex(tx, ix); err != nil {
			return err
		}
		if err := dropStaged(tx); err != nil {
			return err
		}
		return tx.DeleteSetting(reindexSetting)
	})
}

// dropStaged drops the embed cache and what an older mcpvec staged.
func dropStaged(tx *store.Tx) error {
	if err := tx.DropAux(AuxEmbedCache); err != nil {
		return err
	}
	return tx.DropAux(legacyReindexBucket)
}

// saveVectorIndex replaces the persisted vector index with ix.
func saveVectorIndex(tx *store.Tx, ix *vector.Index) error {
	if err := tx.DropAux(AuxVectors); err != nil {
		return err
	}
	kv, err := tx.Aux(AuxVectors)
	if err != nil {
		return err
	}
	return ix.Save(kv)
}
