package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

// Reindexing stages new vectors in an aux bucket, one committed batch at a
// time, so an interrupted run resumes where it stopped and pays for nothing
// twice. The switch — every vector replaced, the embedder identity changed
// and a freshly built vector index saved — is one transaction; until then the
// old vectors and index keep serving.
const (
	reindexBucket  = "reindex-vectors"
	reindexSetting = "reindex-target"
	reindexBatch   = 256
)

func runReindex(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("reindex", "--embedder NAME [--embed-model M] [--dimensions N] | --discard", e)
	var lf libFlags
	var ef embedFlags
	lf.register(fs)
	ef.register(fs, e)
	discard := fs.Bool("discard", false, "throw away an interrupted reindex instead of resuming it")
	if _, st, ok := parseFlags(fs, args, e); !ok {
		return st
	}
	h, err := openLibrary(ctx, e, &lf, true, true)
	if errors.Is(err, errForward) {
		return forward(ctx, e, &lf, append([]string{"reindex"}, args...))
	}
	if err != nil {
		return errorf(e, "%v", err)
	}
	defer h.close()
	if *discard {
		return discardReindex(e, h.db)
	}
	if !ef.set() {
		return errorf(e, "reindex needs the new embedder: --embedder hash|openai [--embed-model M] [--dimensions N]")
	}
	target := ef.identity(e)
	if prev, err := h.db.Setting(reindexSetting); err == nil {
		var p store.EmbedderInfo
		json.Unmarshal(prev, &p)
		if !p.Same(target) && !(target.Model == "" && p.Provider == target.Provider) {
			return errorf(e, "an interrupted reindex to %s exists: rerun it with the same flags to resume, or `mcpvec reindex --discard`", p)
		}
		target = p
		fmt.Fprintf(e.stderr, "resuming the reindex to %s\n", p)
	}
	emb, err := newEmbedder(ctx, e, target)
	if err != nil {
		return errorf(e, "embedder: %v", err)
	}
	id := identityOf(emb)
	raw, _ := json.Marshal(id)
	if err := h.db.PutSetting(reindexSetting, raw); err != nil {
		return errorf(e, "%v", err)
	}
	start := time.Now()
	n, err := stageVectors(ctx, e, h.db, emb)
	if err != nil {
		return errorf(e, "reindex stopped (rerun to resume): %v", err)
	}
	if err := switchVectors(h.db, id); err != nil {
		return errorf(e, "reindex switch: %v", err)
	}
	h.emb = emb
	if err := h.reopenLib(ctx); err != nil {
		return errorf(e, "%v", err)
	}
	if st := e.forwarded; st != nil {
		st.emb, st.lib = h.emb, h.lib
	}
	fmt.Fprintf(e.stdout, "reindexed %d passages with %s in %s%s\n", n, id, time.Since(start).Round(time.Millisecond), tokenNote(h))
	return 0
}

func discardReindex(e *env, db *store.DB) int {
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

// stageVectors embeds every passage that has no staged vector yet, one
// committed batch at a time. It returns the number of passages.
func stageVectors(ctx context.Context, e *env, db *store.DB, emb embed.Embedder) (int, error) {
	type todo struct {
		seq  uint64
		text string
	}
	var pending []todo
	total := 0
	err := db.View(func(tx *store.Tx) error {
		kv, err := tx.Aux(reindexBucket)
		if err != nil {
			return err
		}
		for seq, text := range tx.ChunkTexts() {
			total++
			if kv.Get(seqBytes(seq)) == nil {
				pending = append(pending, todo{seq, text})
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
	for i := 0; i < len(pending); i += reindexBatch {
		batch := pending[i:min(len(pending), i+reindexBatch)]
		texts := make([]string, len(batch))
		for j, t := range batch {
			texts[j] = t.text
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return 0, err
		}
		err = db.Update(func(tx *store.Tx) error {
			kv, err := tx.Aux(reindexBucket)
			if err != nil {
				return err
			}
			for j, t := range batch {
				if err := kv.Put(seqBytes(t.seq), store.EncodeVector(vecs[j])); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(e.stderr, "\rembedded %d/%d passages", min(i+reindexBatch, len(pending))+total-len(pending), total)
	}
	if len(pending) > 0 {
		fmt.Fprintln(e.stderr)
	}
	return total, nil
}

// switchVectors replaces every vector with its staged one, records the new
// embedder and saves a vector index built from the new vectors, in one
// transaction.
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
				return fmt.Errorf("passage %d has no staged vector (written during the reindex?): rerun", seq)
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
