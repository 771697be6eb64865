package embed

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/internal/evalset"
)

// The offline-embedder evaluation reads the shared collections (never copied
// into the project), scores runs with the shared eval.py and prints a table.
// It is opt-in, so CI does not pay for it:
//
//	MCPVEC_EVAL=1 go test -run TestEvalHash -v ./ingest/embed/
//
// MCPVEC_EVAL_DIR       collection folder (default /work/shared/eval)
// MCPVEC_EVAL_DIMS      comma-separated dimensions for the quality curve
//                       (default: the default dimensions only)
// MCPVEC_EVAL_VARIANTS  =1 also scores feature ablations
// MCPVEC_EVAL_ONLY      only ablations whose name contains this
// MCPVEC_EVAL_OUT       folder to keep the TREC runs in

type evalColl struct {
	name    string
	docs    []evalset.Doc
	queries []evalset.Query
	lex     *lexical.Index
	qrels   string // qrels.tsv path
}

type hit struct {
	doc   int
	score float64
}

func hashEvalDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("MCPVEC_EVAL") == "" {
		t.Skip("set MCPVEC_EVAL=1 to run the retrieval evaluation")
	}
	if dir := os.Getenv("MCPVEC_EVAL_DIR"); dir != "" {
		return dir
	}
	return "/work/shared/eval"
}

func loadColl(t *testing.T, dir, name string) *evalColl {
	docs, queries, err := evalset.Load(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	c := &evalColl{name: name, docs: docs, queries: queries, lex: lexical.New(lexical.DefaultConfig()),
		qrels: filepath.Join(dir, name, "qrels.tsv")}
	for i, d := range c.docs {
		c.lex.Add(uint64(i), d.Title+"\n"+d.Text)
	}
	return c
}

// idfWeight is the query-side word weight the lead can wire in: the idf of
// the word's first lexical token, from the live lexical index.
func idfWeight(ix *lexical.Index) func(string) float64 { return ix.IDF }

func (c *evalColl) lexical(depth int) [][]hit {
	out := make([][]hit, len(c.queries))
	for i, q := range c.queries {
		for _, r := range c.lex.Search(q.Text, depth) {
			out[i] = append(out[i], hit{int(r.ID), float64(r.Score)})
		}
	}
	return out
}

// docVectors embeds every document (title and text).
func (c *evalColl) docVectors(t *testing.T, h *Hash) [][]float32 {
	texts := make([]string, len(c.docs))
	for i, d := range c.docs {
		texts[i] = d.Title + "\n" + d.Text
	}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}

// vector ranks by brute-force cosine (dot product of unit vectors).
func (c *evalColl) vector(t *testing.T, h *Hash, depth int) [][]hit {
	vecs := c.docVectors(t, h)
	out := make([][]hit, len(c.queries))
	scores := make([]hit, len(vecs))
	for i, q := range c.queries {
		qv, err := h.EmbedQuery(context.Background(), q.Text)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range vecs {
			var dot float32
			for k := range v {
				dot += v[k] * qv[k]
			}
			scores[j] = hit{j, float64(dot)}
		}
		out[i] = topHits(scores, depth)
	}
	return out
}

func topHits(hs []hit, depth int) []hit {
	s := slices.Clone(hs)
	slices.SortFunc(s, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.doc, b.doc))
	})
	return s[:min(depth, len(s))]
}

// rrf fuses a lexical and a vector list by reciprocal rank, 1/(k+rank),
// the vector list's terms multiplied by vw (1: plain RRF).
func rrf(k, vw float64, lex, vec [][]hit) [][]hit {
	out := make([][]hit, len(lex))
	for q := range out {
		sum := map[int]float64{}
		for li, l := range [][]hit{lex[q], vec[q]} {
			w := 1.0
			if li == 1 {
				w = vw
			}
			for rank, h := range l {
				sum[h.doc] += w / (k + float64(rank+1))
			}
		}
		out[q] = fromMap(sum)
	}
	return out
}

// weighted fuses min-max normalised scores: w·lex + (1−w)·vec; a document
// missing from one list gets 0 from it.
func weighted(w float64, lex, vec [][]hit) [][]hit {
	out := make([][]hit, len(lex))
	for q := range out {
		sum := map[int]float64{}
		for _, part := range []struct {
			l []hit
			w float64
		}{{lex[q], w}, {vec[q], 1 - w}} {
			if len(part.l) == 0 {
				continue
			}
			hi, lo := part.l[0].score, part.l[len(part.l)-1].score
			for _, h := range part.l {
				n := 1.0
				if hi > lo {
					n = (h.score - lo) / (hi - lo)
				}
				sum[h.doc] += part.w * n
			}
		}
		out[q] = fromMap(sum)
	}
	return out
}

func fromMap(m map[int]float64) []hit {
	hs := make([]hit, 0, len(m))
	for d, s := range m {
		hs = append(hs, hit{d, s})
	}
	return topHits(hs, 100)
}

type metrics struct{ ndcg, r10, r100, mrr float64 }

// score writes a TREC run of the top 100 and scores it with eval.py.
func (c *evalColl) score(t *testing.T, dir, tag string, run [][]hit) metrics {
	t.Helper()
	out := os.Getenv("MCPVEC_EVAL_OUT")
	if out == "" {
		out = t.TempDir()
	}
	path := filepath.Join(out, c.name+"-"+strings.NewReplacer(" ", "_", "/", "_", "=", "").Replace(tag)+".trec")
	var b strings.Builder
	for qi, hs := range run {
		for rank, h := range hs[:min(100, len(hs))] {
			fmt.Fprintf(&b, "%s Q0 %s %d %.6f %s\n", c.queries[qi].ID, c.docs[h.doc].ID, rank+1, h.score, "mcpvec")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := evalset.Score(filepath.Join(dir, "eval.py"), c.qrels, path)
	if err != nil {
		t.Fatal(err)
	}
	return metrics{m["ndcg@10"], m["recall@10"], m["recall@100"], m["mrr@10"]}
}

func logRow(t *testing.T, coll, system string, m metrics) {
	t.Logf("| %-9s | %-34s | %.4f | %.4f | %.4f | %.4f |", coll, system, m.ndcg, m.r10, m.r100, m.mrr)
}

func logHeader(t *testing.T) {
	t.Logf("| %-9s | %-34s | %-6s | %-6s | %-6s | %-6s |", "coll", "system", "nDCG10", "R@10", "R@100", "MRR@10")
}

func evalDims() []int {
	s := os.Getenv("MCPVEC_EVAL_DIMS")
	if s == "" {
		return []int{DefaultHashConfig().Dimensions}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// TestEvalHash prints lexical, vector (per dimension, with and without
// query-side idf), RRF and weighted fusion on both collections.
func TestEvalHash(t *testing.T) {
	dir := hashEvalDir(t)
	logHeader(t)
	for _, name := range []string{"scifact", "cranfield"} {
		c := loadColl(t, dir, name)
		lex := c.lexical(1000)
		logRow(t, name, "lexical bm25", c.score(t, dir, "lexical", lex))
		for _, dims := range evalDims() {
			for _, qw := range []bool{false, true} {
				cfg := DefaultHashConfig()
				cfg.Dimensions = dims
				label := fmt.Sprintf("hash d=%d", dims)
				if qw {
					cfg.QueryWeight = idfWeight(c.lex)
					label += " +qidf"
				}
				vec := c.vector(t, NewHash(cfg), 1000)
				logRow(t, name, label, c.score(t, dir, label, vec))
				for _, vw := range []float64{1, 0.5, 0.3} {
					tag := fmt.Sprintf("rrf60 vw%.1f lex+%s", vw, label)
					logRow(t, name, tag, c.score(t, dir, tag, rrf(60, vw, lex, vec)))
				}
				for _, w := range []float64{0.6, 0.7, 0.8} {
					tag := fmt.Sprintf("w%.1f lex+%s", w, label)
					logRow(t, name, tag, c.score(t, dir, tag, weighted(w, lex, vec)))
				}
			}
		}
	}
}

// TestEvalHashVariants scores feature ablations at the default dimensions
// with query-side idf (MCPVEC_EVAL_VARIANTS=1).
func TestEvalHashVariants(t *testing.T) {
	dir := hashEvalDir(t)
	if os.Getenv("MCPVEC_EVAL_VARIANTS") == "" {
		t.Skip("set MCPVEC_EVAL_VARIANTS=1 to score feature ablations")
	}
	type variant struct {
		name string
		cfg  HashConfig
		pow  float64 // exponent on the query-side idf (0: 1)
	}
	variants := []variant{
		{"words only", HashConfig{NgramWeight: -1}, 0},
		{"ngrams only 3-5", HashConfig{WordWeight: -1}, 0},
		{"words+ngrams 3-5", HashConfig{MinN: 3, MaxN: 5}, 0},
		{"words+ngrams 3-4", HashConfig{MinN: 3, MaxN: 4}, 0},
		{"words+ngrams 4-5", HashConfig{MinN: 4, MaxN: 5}, 0},
		{"words+ngrams 4-4", HashConfig{MinN: 4, MaxN: 4}, 0},
		{"words+ngrams 5-5", HashConfig{MinN: 5, MaxN: 5}, 0},
		{"words+0.5 ngrams", HashConfig{NgramWeight: 0.5}, 0},
		{"words+2 ngrams", HashConfig{NgramWeight: 2}, 0},
		{"words+ngrams+0.3 bigrams", HashConfig{BigramWeight: 0.3}, 0},
		{"words+ngrams qidf^2", HashConfig{}, 2},
		{"words+ngrams qidf^1.5", HashConfig{}, 1.5},
		{"words only qidf^2", HashConfig{NgramWeight: -1}, 2},
	}
	if only := os.Getenv("MCPVEC_EVAL_ONLY"); only != "" {
		variants = slices.DeleteFunc(variants, func(v variant) bool { return !strings.Contains(v.name, only) })
	}
	logHeader(t)
	for _, name := range []string{"scifact", "cranfield"} {
		c := loadColl(t, dir, name)
		lex := c.lexical(1000)
		for _, v := range variants {
			cfg := v.cfg
			cfg.Dimensions = evalDims()[0]
			idf, pow := idfWeight(c.lex), cmp.Or(v.pow, 1)
			cfg.QueryWeight = func(w string) float64 { return math.Pow(idf(w), pow) }
			vec := c.vector(t, NewHash(cfg), 1000)
			logRow(t, name, v.name, c.score(t, dir, v.name, vec))
			logRow(t, name, "rrf60 "+v.name, c.score(t, dir, "rrf "+v.name, rrf(60, 1, lex, vec)))
			logRow(t, name, "w0.7 "+v.name, c.score(t, dir, "w0.7 "+v.name, weighted(0.7, lex, vec)))
		}
	}
}
