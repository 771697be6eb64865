package lexical

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mcpvec/mcpvec/internal/evalset"
)

// The retrieval evaluation reads the shared collections (never copied into
// the project) and scores runs with the shared eval.py. It is opt-in:
//
//	MCPVEC_EVAL=1 go test -run TestEvalBM25 -v ./index/lexical/
//
// MCPVEC_EVAL_DIR overrides the collection folder (default
// /work/shared/eval); MCPVEC_EVAL_SWEEP=1 also scores a k1/b grid.

func evalDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("MCPVEC_EVAL") == "" {
		t.Skip("set MCPVEC_EVAL=1 to run the retrieval evaluation")
	}
	dir := os.Getenv("MCPVEC_EVAL_DIR")
	if dir == "" {
		dir = "/work/shared/eval"
	}
	return dir
}

// scoreRun writes a TREC run and returns eval.py's metrics.
func scoreRun(t *testing.T, dir, coll string, qs []evalset.Query, ids []string, run func(q string) []Result) map[string]float64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), coll+".trec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, q := range qs {
		for rank, r := range run(q.Text) {
			fmt.Fprintf(w, "%s Q0 %s %d %f mcpvec\n", q.ID, ids[r.ID], rank+1, r.Score)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	m, err := evalset.Score(filepath.Join(dir, "eval.py"), filepath.Join(dir, coll, "qrels.tsv"), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEvalBM25(t *testing.T) {
	dir := evalDir(t)
	grid := []Config{DefaultConfig()}
	if os.Getenv("MCPVEC_EVAL_SWEEP") != "" {
		for _, k1 := range []float64{0.6, 0.9, 1.2, 1.5, 2.0} {
			for _, b := range []float64{0.3, 0.5, 0.75, 0.9} {
				grid = append(grid, Config{K1: k1, B: b})
			}
		}
	}
	for _, coll := range []string{"scifact", "cranfield"} {
		docs, qs, err := evalset.Load(filepath.Join(dir, coll))
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(docs))
		for _, cfg := range grid {
			ix := New(cfg)
			for i, d := range docs {
				ids[i] = d.ID
				ix.Add(uint64(i), d.Title+"\n"+d.Text)
			}
			m := scoreRun(t, dir, coll, qs, ids, func(q string) []Result { return ix.Search(q, 100) })
			t.Logf("%-9s k1=%-4s b=%-4s nDCG@10=%.4f R@10=%.4f R@100=%.4f MRR@10=%.4f", coll,
				strconv.FormatFloat(cfg.K1, 'f', -1, 64), strconv.FormatFloat(cfg.B, 'f', -1, 64),
				m["ndcg@10"], m["recall@10"], m["recall@100"], m["mrr@10"])
		}
	}
}

// TestEvalBM25Digest logs a SHA-256 of every result (id and float32 score
// bits) of the collections' queries at k 10 and 100: run it on two commits
// to show a refactor left BM25 scores bit-identical
// (docs/benchmarks/analysis.md). Opt-in like TestEvalBM25.
func TestEvalBM25Digest(t *testing.T) {
	dir := evalDir(t)
	for _, coll := range []string{"scifact", "cranfield"} {
		docs, qs, err := evalset.Load(filepath.Join(dir, coll))
		if err != nil {
			t.Fatal(err)
		}
		ix := New(DefaultConfig())
		for i, d := range docs {
			ix.Add(uint64(i), d.Title+"\n"+d.Text)
		}
		h, results := sha256.New(), 0
		for _, q := range qs {
			for _, k := range []int{10, 100} {
				for _, r := range ix.Search(q.Text, k) {
					h.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, r.ID), math.Float32bits(r.Score)))
					results++
				}
			}
		}
		t.Logf("%-9s %d passages, %d queries, %d results, digest %x", coll, len(docs), len(qs), results, h.Sum(nil))
	}
}
