package corpus_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/corpus"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
)

// TestCorpusRecallScale fits the corpus model on MCPVEC_CORPUS_RECALL
// generated passages (4 to 9 SciFact sentences each, drawn at random from a
// fixed seed, as cmd/mcpvec-scale recombines them), reports the fitting
// time and peak Go heap, embeds every passage into index/vector's HNSW
// graph configured as the library configures it for corpus vectors
// (library.OptionsFor; MCPVEC_CORPUS_RECALL_DEFAULT=1 adds the default
// graph) and measures recall@10 at ef 200
// against the exact scan, with the SciFact queries. It fails below 0.95.
// Opt-in (minutes at 100k):
//
//	MCPVEC_CORPUS_RECALL=100000 go test -run TestCorpusRecallScale -v -timeout 30m ./ingest/embed/corpus/
//
// MCPVEC_EVAL_DIR overrides the collection folder (default
// /work/shared/eval).
func TestCorpusRecallScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MCPVEC_CORPUS_RECALL"))
	if n <= 0 {
		t.Skip("set MCPVEC_CORPUS_RECALL=100000 to measure")
	}
	dir := "/work/shared/eval"
	if d := os.Getenv("MCPVEC_EVAL_DIR"); d != "" {
		dir = d
	}
	docs, queries, err := evalset.Load(filepath.Join(dir, "scifact"))
	if err != nil {
		t.Fatal(err)
	}
	passages := generate(docs, n)
	m := fitMeasured(t, passages)
	start, cpu := time.Now(), cputime.Process()
	vecs := make([][]float32, len(passages))
	for i, p := range passages {
		vecs[i] = m.Vector(p)
	}
	t.Logf("embedded %d passages in %s (%s CPU)", n, time.Since(start).Round(time.Millisecond), (cputime.Process() - cpu).Round(time.Millisecond))
	qvecs := make([][]float32, len(queries))
	for i, q := range queries {
		qvecs[i] = m.Vector(q.Text)
	}
	corpusGraph := library.OptionsFor(embed.TraitsOf(embed.Identity{Provider: corpus.Provider})).Index
	graphs := []vector.Config{corpusGraph}
	if os.Getenv("MCPVEC_CORPUS_RECALL_DEFAULT") != "" {
		graphs = append(graphs, vector.DefaultConfig())
	}
	for _, cfg := range graphs {
		r := graphRecall(t, cfg, vecs, qvecs)
		if cfg == corpusGraph && r < 0.95 {
			t.Errorf("recall@10 = %.4f with the corpus embedder's graph, want >= 0.95", r)
		}
	}
}

// graphRecall builds an HNSW graph of cfg over vecs and returns the
// recall@10 of SearchEf at ef 200 against the exact scan, over qvecs.
func graphRecall(t *testing.T, cfg vector.Config, vecs, qvecs [][]float32) float64 {
	start, cpu := time.Now(), cputime.Process()
	x := vector.New(len(vecs[0]), cfg)
	for i, v := range vecs {
		if err := x.Add(uint64(i+1), v); err != nil {
			t.Fatal(err)
		}
	}
	built := fmt.Sprintf("built in %s (%s CPU)", time.Since(start).Round(time.Millisecond), (cputime.Process() - cpu).Round(time.Millisecond))
	var hit, total int
	for _, v := range qvecs {
		want, err := x.SearchExact(v, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.SearchEf(v, 10, 200)
		if err != nil {
			t.Fatal(err)
		}
		hit += overlap(want, got)
		total += len(want)
	}
	r := float64(hit) / float64(total)
	t.Logf("graph M %d, ef construction %d, %s: recall@10 at ef 200 over %d queries = %.4f", cfg.M, cfg.EfConstruction, built, len(qvecs), r)
	return r
}

// fitMeasured fits the default model on passages and logs its time and the
// peak Go heap in use while fitting (sampled every 20 ms).
func fitMeasured(t *testing.T, passages []string) *corpus.Model {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				var s runtime.MemStats
				runtime.ReadMemStats(&s)
				if s.HeapInuse > peak.Load() {
					peak.Store(s.HeapInuse)
				}
			}
		}
	}()
	start, cpu := time.Now(), cputime.Process()
	m, err := corpus.Fit(context.Background(), func(yield func(string) bool) {
		for _, p := range passages {
			if !yield(p) {
				return
			}
		}
	}, corpus.Config{})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	sample, _ := m.Fitted()
	t.Logf("fitted %d dims, %d terms on %d of %d passages in %s (%s CPU); peak heap above the passages %s",
		m.Dims(), m.Terms(), sample, len(passages), time.Since(start).Round(time.Millisecond), (cputime.Process() - cpu).Round(time.Millisecond), mib(peak.Load()-min(peak.Load(), base)))
	return m
}

// generate makes n passages of 4 to 9 sentences of docs, from a fixed seed.
func generate(docs []evalset.Doc, n int) []string {
	var sents []string
	for _, d := range docs {
		for _, s := range strings.SplitAfter(d.Text, ". ") {
			if s = strings.TrimSpace(s); s != "" {
				sents = append(sents, s)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 4 + r.IntN(6) {
			b.WriteString(sents[r.IntN(len(sents))])
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

func overlap(want, got []vector.Result) int {
	ids := map[uint64]bool{}
	for _, r := range want {
		ids[r.ID] = true
	}
	n := 0
	for _, r := range got {
		if ids[r.ID] {
			n++
		}
	}
	return n
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
