package main

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	lsa "github.com/mcpvec/mcpvec/ingest/embed/corpus"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// useCorpus fits the corpus embedder (LSA) on the passages just ingested,
// re-embeds every passage with it through the reindex machinery and
// reopens the library on it as mcpvec does (-vector-weight and -fusion
// override its score fusion).
func (t *testLibrary) useCorpus(ctx context.Context, c config) error {
	start := time.Now()
	cfg := lsa.DefaultConfig()
	if c.corpusDims > 0 {
		cfg.Dims = c.corpusDims
	}
	if c.corpusExp >= 0 {
		cfg.Exponent = c.corpusExp
	}
	m, err := fitFromStore(ctx, t.db, cfg)
	if err != nil {
		return err
	}
	fit := time.Since(start)
	emb := lsa.New(m)
	if _, err := embedded.Reindex(ctx, t.db, emb, emb.Identity(), embedded.ReindexOptions{Batch: 1024, Parallel: 1}); err != nil {
		return err
	}
	sample, _ := m.Fitted()
	fmt.Printf("corpus model: %d dims, %d terms, fitted on %d passages in %s, all embedded in %s\n",
		m.Dims(), m.Terms(), sample, fit.Round(time.Millisecond), (time.Since(start) - fit).Round(time.Millisecond))
	// What mcpvec opens a library of this embedder with (score fusion at
	// its weight, its HNSW graph), with the eval's candidate depth.
	opts := library.EmbedderOptions(emb)
	opts.MaxK, opts.RRFK = 100, c.rrfK
	if c.vecWeight != 0 {
		opts.VectorWeight = c.vecWeight
	}
	if c.fusion != "" {
		opts.Fusion = c.fusion
	}
	lib, err := embedded.Open(ctx, t.db, emb, opts)
	if err != nil {
		return err
	}
	t.lib, t.emb, t.opts = lib, emb, opts
	return nil
}

// fitFromStore fits a corpus model on db's passages, read in one read
// transaction.
func fitFromStore(ctx context.Context, db *store.DB, cfg lsa.Config) (*lsa.Model, error) {
	var m *lsa.Model
	err := db.View(func(tx *store.Tx) error {
		var err error
		m, err = lsa.Fit(ctx, texts(tx.ChunkTexts()), cfg)
		return err
	})
	return m, err
}

func texts(s iter.Seq2[uint64, string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, t := range s {
			if !yield(t) {
				return
			}
		}
	}
}

// halfQueries keeps every other query (c.queryHalf: odd keeps the first,
// third, ...; even the second, fourth, ...) and writes their judgements to
// c.out/<coll>-<half>/qrels.tsv; it returns that folder and the queries.
func halfQueries(c config, coll, base string, qs []query) (string, []query, error) {
	var keep []query
	ids := map[string]bool{}
	for i, q := range qs {
		if (i%2 == 0) == (c.queryHalf == "odd") {
			keep = append(keep, q)
			ids[q.ID] = true
		}
	}
	if c.queryHalf != "odd" && c.queryHalf != "even" {
		return "", nil, fmt.Errorf("-query-half %q: want odd or even", c.queryHalf)
	}
	raw, err := os.ReadFile(filepath.Join(base, "qrels.tsv"))
	if err != nil {
		return "", nil, err
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && ids[f[0]] {
			out = append(out, line)
		}
	}
	dir := filepath.Join(c.out, coll+"-"+c.queryHalf)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	return dir, keep, os.WriteFile(filepath.Join(dir, "qrels.tsv"), []byte(strings.Join(out, "\n")+"\n"), 0o644)
}
