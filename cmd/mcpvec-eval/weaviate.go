package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/store"
)

// evalWeaviate copies the evaluated library into a fresh Weaviate
// collection (as `mcpvec migrate --to` does, with the CLI's analyzer) and
// scores the same queries through it, rows labelled "weaviate-": BM25
// compared score by score with the embedded index and lexical search right
// after the copy, then both again and every mode c.settle after it.
func evalWeaviate(ctx context.Context, c config, coll, base string, tl *testLibrary, queries []query, docOf map[string]string) error {
	name := fmt.Sprintf("Eval%s%d", strings.ToUpper(coll[:1])+coll[1:], time.Now().Unix())
	url := strings.TrimSuffix(c.weaviate, "/") + "/" + name
	st, err := weaviate.OpenCollection(ctx, url, &weaviate.Options{Analyzer: analysis.Tokenize, AnalyzerName: analysis.AnalyzerName})
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	p, err := st.CopyFrom(ctx, tl.db, weaviate.CopyOptions{})
	if err != nil {
		return fmt.Errorf("copy into %s: %w", url, err)
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	copied := time.Now()
	took := copied.Sub(start)
	fmt.Printf("| (copied %d documents, %d passages into %s in %s: %.0f passages/s) | | | | | |\n",
		p.Copied, stats.Chunks, url, took.Round(time.Millisecond), float64(stats.Chunks)/took.Seconds())
	opts := tl.opts
	be := weaviate.New(st, &weaviate.Options{Fusion: opts.Fusion, VectorWeight: opts.VectorWeight})
	lib := library.New(be, tl.emb, opts)
	if err := compareBM25(ctx, "right after the copy", tl.db, st, queries); err != nil {
		return err
	}
	fresh := c
	fresh.modes = "lexical"
	if err := scoreModes(ctx, fresh, coll, base, "weaviate-fresh-", lib, queries, docOf); err != nil {
		return err
	}
	if wait := c.settle - time.Since(copied); wait > 0 {
		time.Sleep(wait)
	}
	if err := compareBM25(ctx, fmt.Sprintf("%s after the copy", c.settle), tl.db, st, queries); err != nil {
		return err
	}
	return scoreModes(ctx, c, coll, base, "weaviate-", lib, queries, docOf)
}

// compareBM25 ranks every query's top 10 with an in-memory lexical index
// of db's passages and with Weaviate's BM25, asking Weaviate for 100
// passages as the library does (at least its 100 candidates) and for 10,
// and prints how many rankings agree and how far the scores are apart.
// Weaviate leaves out BM25's constant (k1+1) factor, so its scores are
// multiplied by it.
func compareBM25(ctx context.Context, when string, db *store.DB, st *weaviate.Collection, queries []query) error {
	ix := lexical.New(lexical.DefaultConfig())
	if err := db.View(func(tx *store.Tx) error {
		for seq, text := range tx.ChunkTexts() {
			ix.Add(seq, text)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, limit := range []int{100, 10} {
		var a agreement
		for _, q := range queries {
			want, err := passageIDs(db, ix.Search(q.Text, 10))
			if err != nil {
				return err
			}
			got, err := st.Lexical(ctx, q.Text, limit)
			if err != nil {
				return fmt.Errorf("query %s: %w", q.ID, err)
			}
			a.add(want, got[:min(10, len(got))])
		}
		fmt.Printf("| (BM25 top 10 %s, Weaviate asked for %d: %d of %d queries ranked as by the embedded index, %d with the same passages; largest score difference at equal rank %.2g%%) | | | | | |\n",
			when, limit, a.same, len(queries), a.sameSet, 100*a.worst)
	}
	return nil
}

// agreement counts how alike two BM25 rankings of the same queries are.
type agreement struct {
	same, sameSet int
	worst         float64 // largest relative score difference at equal rank
}

func (a *agreement) add(want []scored, got []weaviate.Hit) {
	k1 := lexical.DefaultConfig().K1
	order, set := len(got) == len(want), map[string]bool{}
	for i := range min(len(got), len(want)) {
		order = order && got[i].Chunk.ID() == want[i].id
		set[want[i].id] = true
		a.worst = max(a.worst, math.Abs(got[i].Score*(k1+1)/want[i].score-1))
	}
	if order {
		a.same++
	}
	if len(got) == len(want) && allIn(got, set) {
		a.sameSet++
	}
}

// scored is a passage's public id and its BM25 score.
type scored struct {
	id    string
	score float64
}

// passageIDs gives the embedded index's results their public passage ids
// (sequence numbers differ between the two stores).
func passageIDs(db *store.DB, rs []lexical.Result) ([]scored, error) {
	seqs := make([]uint64, len(rs))
	for i, r := range rs {
		seqs[i] = r.ID
	}
	cs, err := db.Chunks(seqs)
	if err != nil {
		return nil, err
	}
	out := make([]scored, len(rs))
	for i, c := range cs {
		out[i] = scored{c.ID(), float64(rs[i].Score)}
	}
	return out, nil
}

func allIn(hits []weaviate.Hit, set map[string]bool) bool {
	for _, h := range hits {
		if !set[h.Chunk.ID()] {
			return false
		}
	}
	return true
}
