package embed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/internal/evalset"
)

// TestEvalHashRobust measures what the offline embedder's vectors buy over
// BM25 on queries BM25 cannot match word for word: testdata/
// scifact-variants.jsonl holds 48 SciFact claims rewritten with a
// misspelling (typo), another word form (form) or a split or joined
// compound (compound), each judged by its original claim's qrels. For
// each dimension it scores lexical, vector (brute force) and hybrid as the
// library fuses them (min-max score fusion, vector weight 0.15, top 100 of
// each), on the variants, on the 300 original claims and on Cranfield (which
// the default must not make worse), and the HNSW
// recall@10 of the library's index (default config, int8 walk, re-scored
// through a Source) against the brute force, over the SciFact corpus:
//
//	MCPVEC_EVAL=1 go test -run TestEvalHashRobust -v -timeout 2h ./ingest/embed/
//
// MCPVEC_EVAL_DIMS overrides the dimensions (default 256,384,512,1024).
func TestEvalHashRobust(t *testing.T) {
	dir := hashEvalDir(t)
	dims := []int{256, 384, 512, 1024}
	if os.Getenv("MCPVEC_EVAL_DIMS") != "" {
		dims = evalDims()
	}
	c := loadColl(t, dir, "scifact")
	variants := loadVariants(t, dir, c)
	t.Logf("| %-9s | %-22s | %-6s | %-6s | %-6s |", "queries", "system", "nDCG10", "R@10", "MRR@10")
	for _, set := range []*evalColl{c, variants, loadColl(t, dir, "cranfield")} {
		lex := set.lexical(100)
		row(t, set, "lexical bm25", set.score(t, dir, set.name+"-lexical", lex))
		for _, d := range dims {
			cfg := DefaultHashConfig()
			cfg.Dimensions = d
			cfg.QueryWeight = idfWeight(set.lex)
			h := NewHash(cfg)
			vec := set.vector(t, h, 100)
			row(t, set, fmt.Sprintf("vector d=%d", d), set.score(t, dir, fmt.Sprintf("%s-vec%d", set.name, d), vec))
			hyb := weighted(1/1.15, lex, vec)
			row(t, set, fmt.Sprintf("hybrid d=%d", d), set.score(t, dir, fmt.Sprintf("%s-hyb%d", set.name, d), hyb))
			if set == variants {
				for ef, r := range hnswRecall(t, c, h, []int{100, 200}) {
					t.Logf("| %-9s | %-22s | recall@10 %.4f (ef %d, %d docs, %d queries) |", "hnsw",
						fmt.Sprintf("HNSW d=%d", d), r, ef, len(c.docs), len(c.queries)+len(variants.queries))
				}
			}
		}
	}
}

func row(t *testing.T, c *evalColl, system string, m metrics) {
	t.Logf("| %-9s | %-22s | %.4f | %.4f | %.4f |", c.name, system, m.ndcg, m.r10, m.mrr)
}

// variant is one line of testdata/scifact-variants.jsonl.
type variant struct{ ID, Base, Kind, Original, Text string }

// loadVariants returns c with the variant queries and their qrels (the
// original claims'), written to a temporary qrels file.
func loadVariants(t *testing.T, dir string, c *evalColl) *evalColl {
	vs, err := evalset.ReadJSONL[variant]("testdata/scifact-variants.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "scifact", "qrels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			byQuery[f[0]] = append(byQuery[f[0]], f[1]+"\t"+f[2])
		}
	}
	out := &evalColl{name: "variants", docs: c.docs, lex: c.lex, qrels: filepath.Join(t.TempDir(), "qrels.tsv")}
	var b strings.Builder
	for _, v := range vs {
		if len(byQuery[v.Base]) == 0 || v.Text == v.Original {
			t.Fatalf("variant %s: no qrels for claim %s, or text unchanged", v.ID, v.Base)
		}
		out.queries = append(out.queries, evalset.Query{ID: v.ID, Text: v.Text})
		for _, r := range byQuery[v.Base] {
			fmt.Fprintf(&b, "%s\t%s\n", v.ID, r)
		}
	}
	if err := os.WriteFile(out.qrels, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// hnswRecall builds the library's vector index (default config, vectors
// read back through a Source) over c's documents and returns, for each ef,
// the mean recall@10 of the top 10 of a search for the library's 100
// fusion candidates against the brute-force top 10, over c's queries and
// the variants'.
func hnswRecall(t *testing.T, c *evalColl, h *Hash, efs []int) map[int]float64 {
	vecs := c.docVectors(t, h)
	cfg := vector.DefaultConfig()
	cfg.Source = &sliceSource{vecs}
	x := vector.New(h.Identity().Dimensions, cfg)
	for i, v := range vecs {
		if err := x.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := evalset.ReadJSONL[variant]("testdata/scifact-variants.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, q := range c.queries {
		qs = append(qs, q.Text)
	}
	for _, v := range vs {
		qs = append(qs, v.Text)
	}
	found := map[int]int{}
	for _, q := range qs {
		qv, err := h.EmbedQuery(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		scores := make([]hit, len(vecs))
		for j, v := range vecs {
			var dot float32
			for k := range v {
				dot += v[k] * qv[k]
			}
			scores[j] = hit{j, float64(dot)}
		}
		want := map[int]bool{}
		for _, w := range topHits(scores, 10) {
			want[w.doc] = true
		}
		for _, ef := range efs {
			got, err := x.SearchEf(qv, 100, ef)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got[:min(10, len(got))] {
				if want[int(r.ID)] {
					found[ef]++
				}
			}
		}
	}
	out := map[int]float64{}
	for _, ef := range efs {
		out[ef] = float64(found[ef]) / float64(10*len(qs))
	}
	return out
}

// sliceSource serves the vectors the index re-scores, as the store does.
type sliceSource struct{ vecs [][]float32 }

func (s *sliceSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	for i, id := range ids {
		if id < uint64(len(s.vecs)) {
			fn(i, s.vecs[id])
		}
	}
	return nil
}
