package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

const (
	benchDim       = 64
	benchPerDoc    = 100
	benchVocab     = 8000
	benchWordsEach = 60
)

// benchWord is the i-th synthetic word; low indexes are common words.
func benchWord(i int) string { return fmt.Sprintf("w%x", i*2654435761%1000003) }

// zipfWord draws a word index with a Zipf-like distribution.
func zipfWord(r *rand.Rand) int {
	return int(float64(benchVocab) * r.Float64() * r.Float64() * r.Float64())
}

func benchQueries(n int) []string {
	r := rand.New(rand.NewPCG(7, 7))
	out := make([]string, n)
	for i := range out {
		out[i] = benchWord(r.IntN(benchVocab)) + " " + benchWord(zipfWord(r)) + " " + benchWord(r.IntN(benchVocab))
	}
	return out
}

// benchLibrary opens (building on first use) a synthetic library of n
// passages in the OS temp dir. The file name carries the parameters, so a
// change of shape builds a new one.
func benchLibrary(b *testing.B, n int) *library.Library {
	b.Helper()
	emb := hashEmbedder{Dims: benchDim}
	db := storetest.OpenCached(b, fmt.Sprintf("mcpvec-bench-server-%d-%d-%d.db", n, benchDim, benchWordsEach),
		func(path string) { buildBenchStore(b, path, n, emb) })
	start := time.Now()
	lib, err := embedded.Open(context.Background(), db, emb, library.Options{Logger: quietLogger(b)})
	if err != nil {
		b.Fatal(err)
	}
	if st := lib.IndexStats(context.Background()); st.VectorPassages != n || st.LexicalPassages != n {
		b.Fatalf("index stats %+v, want %d passages", st, n)
	}
	b.Logf("opened library of %d passages in %v", n, time.Since(start))
	return lib
}

func buildBenchStore(b *testing.B, path string, n int, emb hashEmbedder) {
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "hash", Dimensions: emb.Dims}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for d := 0; d*benchPerDoc < n; d++ {
		doc := testDoc{id: fmt.Sprintf("doc%05d", d), title: fmt.Sprintf("doc%05d.pdf", d),
			path: fmt.Sprintf("/bench/doc%05d.pdf", d), mediaType: "application/pdf"}
		for range min(benchPerDoc, n-d*benchPerDoc) {
			words := make([]string, benchWordsEach)
			for i := range words {
				words[i] = benchWord(zipfWord(r))
			}
			doc.passages = append(doc.passages, strings.Join(words, " ")+".")
		}
		putTestDoc(b, db, emb, doc)
	}
}
