package weaviate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

// BenchmarkOneNode ingests docs×10 passages of 384 dimensions into one real
// node, then runs hybrid searches from 1 and 16 clients, reporting
// passages/s and latency percentiles. Fixed seed.
func BenchmarkOneNode(b *testing.B) {
	const docs, per, dim = 200, 10, 384
	c := weaviatetest.Start(b, weaviatetest.Options{})
	ctx := context.Background()
	be, err := weaviate.OpenCollection(ctx, c.URL(0, "Bench"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	if err := be.SetEmbedder(ctx, store.EmbedderInfo{Provider: "bench", Model: "random", Dimensions: dim}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	b.Run("ingest", func(b *testing.B) {
		start := time.Now()
		for i := range docs {
			d, cs, vs := benchDoc(rng, i, per, dim)
			if _, err := be.PutDocument(ctx, d, cs, vs, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(docs*per)/time.Since(start).Seconds(), "passages/s")
	})
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("hybrid/clients=%d", clients), func(b *testing.B) {
			lat := searchLatencies(b, be, rng, clients, 20, dim)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var benchWords = strings.Fields("cell protein gene tumor immune virus dose brain heart risk trial mouse blood lung drug acid model signal receptor pathway")

func benchDoc(rng *rand.Rand, i, per, dim int) (*store.Document, []store.Chunk, [][]float32) {
	d := &store.Document{ID: fmt.Sprintf("bench%04d", i), Title: "bench", Pages: per}
	var cs []store.Chunk
	var vs [][]float32
	for j := range per {
		var sb strings.Builder
		for range 60 {
			sb.WriteString(benchWords[rng.Intn(len(benchWords))] + " ")
		}
		cs = append(cs, store.Chunk{Text: sb.String(), PageStart: j + 1, PageEnd: j + 1})
		vs = append(vs, randomUnit(rng, dim))
	}
	return d, cs, vs
}

func randomUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		n += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// searchLatencies runs perClient hybrid searches (k 100) from each of
// clients goroutines and returns the sorted latencies.
func searchLatencies(b *testing.B, be *weaviate.Collection, rng *rand.Rand, clients, perClient, dim int) []time.Duration {
	qs := make([]weaviate.HybridQuery, clients*perClient)
	for i := range qs {
		qs[i] = weaviate.HybridQuery{Text: benchWords[i%len(benchWords)] + " " + benchWords[(i*7)%len(benchWords)],
			Vector: randomUnit(rng, dim), Limit: 100, Alpha: 0.5}
	}
	lat := make([]time.Duration, len(qs))
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := cl * perClient; i < (cl+1)*perClient; i++ {
				t := time.Now()
				if _, err := be.Hybrid(context.Background(), qs[i]); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}
