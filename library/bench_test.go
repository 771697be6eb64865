package library_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// Synthetic English-like passages: a Zipf-ish vocabulary of real-looking
// words, ~180 words (~250 tokens) each, 20 passages per document.
var benchVocab = func() []string {
	syll := []string{"ka", "lo", "mi", "ter", "an", "sol", "vi", "ra", "en", "to", "pre", "qua", "ly", "dis", "ment", "or"}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 20000)
	for i := range out {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		out[i] = b.String()
	}
	return out
}()

func benchWord(r *rand.Rand) string {
	x := r.Float64()
	return benchVocab[int(float64(len(benchVocab))*x*x*x)]
}

func benchText(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		b.WriteString(benchWord(r))
		if i%15 == 14 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// benchLib builds (or reuses, in the temp dir) a library of n passages with
// the default offline embedder and saved indexes, and opens it.
func benchLib(b *testing.B, n int) (*library.Library, *embed.Hash) {
	b.Helper()
	return benchLibWith(b, n, library.Options{})
}

// benchLibWith is benchLib with the library opened with opts (UseIDF set).
func benchLibWith(b *testing.B, n int, opts library.Options) (*library.Library, *embed.Hash) {
	b.Helper()
	emb := embed.NewHash(embed.DefaultHashConfig())
	id := emb.Identity()
	db := storetest.OpenCached(b, fmt.Sprintf("mcpvec-bench-library-%d-%s-%d.db", n, id.Model, id.Dimensions),
		func(path string) { buildBenchLib(b, path, n, emb) })
	start := time.Now()
	opts.UseIDF = emb.SetQueryWeight
	lib, err := embedded.Open(context.Background(), db, emb, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("opened %d passages in %v", n, time.Since(start))
	return lib, emb
}

func buildBenchLib(b *testing.B, path string, n int, emb *embed.Hash) {
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	id := emb.Identity()
	db.SetEmbedder(store.EmbedderInfo(id))
	lib, err := embedded.Open(context.Background(), db, emb, library.Options{UseIDF: emb.SetQueryWeight})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	const perDoc = 20
	for d := 0; d*perDoc < n; d++ {
		var chunks []store.Chunk
		var texts []string
		var all strings.Builder
		for range min(perDoc, n-d*perDoc) {
			t := benchText(r, 180)
			chunks = append(chunks, store.Chunk{Text: t, Start: all.Len(), End: all.Len() + len(t), PageStart: 1, PageEnd: 1})
			texts = append(texts, t)
			all.WriteString(t)
		}
		vecs, _ := emb.Embed(context.Background(), texts)
		doc := &store.Document{ID: fmt.Sprintf("doc%06d", d), Title: fmt.Sprintf("doc %d", d), SourcePath: fmt.Sprintf("/bench/%d.txt", d),
			MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: all.String()}
		res, err := db.PutDocument(doc, chunks, vecs, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := lib.Apply(context.Background(), res); err != nil {
			b.Fatal(err)
		}
	}
	if err := lib.Save(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func benchSizes() []int {
	if os.Getenv("MCPVEC_BENCH_LARGE") != "" {
		return []int{10000, 100000}
	}
	return []int{10000}
}

// BenchmarkSearch measures the whole query path (query embedding included:
// the offline embedder is local) at k=10 in each mode.
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes() {
		for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				lib, _ := benchLib(b, n)
				r := rand.New(rand.NewPCG(9, 9))
				queries := make([]string, 200)
				for i := range queries {
					queries[i] = benchText(r, 3+r.IntN(5))
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					resp, err := lib.Search(context.Background(), queries[i%len(queries)], library.SearchOptions{K: 10, Mode: mode})
					if err != nil {
						b.Fatal(err)
					}
					if len(resp.Results) == 0 {
						b.Fatalf("no results for %q: the benchmark would measure nothing", queries[i%len(queries)])
					}
					i++
				}
			})
		}
	}
}
