package openai

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

// benchChunks returns n passages of about size bytes (1,500 is a
// typical chunk of ~350 real tokens), fixed seed.
func benchChunks(n, size int) []string {
	words := strings.Fields("the index stores every passage with its vector and the lexical " +
		"terms so that search can rank by meaning and by exact words alike while fetch returns " +
		"the full text of a document page section table figure reference appendix")
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		fmt.Fprintf(&b, "chunk %d:", i)
		for b.Len() < size {
			b.WriteByte(' ')
			b.WriteString(words[rng.IntN(len(words))])
		}
		out[i] = b.String()
	}
	return out
}

// BenchmarkOpenAIEmbed embeds 1,000 chunks per iteration against a fake
// server that adds 50 ms to every request, at several concurrencies, with
// OpenAI's batch limits (2048 inputs, 300k tokens: the token budget
// decides) and with 64-input batches (the default for other servers), JSON floats, plus one base64 case.
// Run with:
//
//	go test -run '^$' -bench OpenAIEmbed -benchtime 10x -count 5 ./ingest/embed/
func BenchmarkOpenAIEmbed(b *testing.B) {
	type bench struct {
		batch, conc int
		enc         string
		size, dims  int // passage bytes, vector length
	}
	var cases []bench
	for _, batch := range []int{2048, 64} {
		for _, conc := range []int{1, 4, 16} {
			cases = append(cases, bench{batch, conc, "float", 1500, 256})
		}
	}
	cases = append(cases, bench{2048, 4, "base64", 1500, 256})
	// Tiny passages and vectors: latency-bound, shows what concurrency buys
	// when the shared CPU is not the bottleneck.
	for _, conc := range []int{1, 4, 16} {
		cases = append(cases, bench{64, conc, "float", 100, 16})
	}
	for _, bc := range cases {
		chunks := benchChunks(1000, bc.size)
		b.Run(fmt.Sprintf("size=%d/dims=%d/batch=%d/enc=%s/conc=%d", bc.size, bc.dims, bc.batch, bc.enc, bc.conc), func(b *testing.B) {
			f := openaitest.NewServer(b, openaitest.Options{Dimensions: bc.dims, Latency: 50 * time.Millisecond, Discard: true})
			o, err := New(context.Background(), Config{
				APIKey: "sk-bench", BaseURL: f.BaseURL(), Dimensions: bc.dims, EncodingFormat: bc.enc,
				MaxBatchInputs: bc.batch, Concurrency: bc.conc, SkipProbe: true,
				Logger: slog.New(slog.DiscardHandler),
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := o.Embed(context.Background(), chunks); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(len(chunks)*b.N)/elapsed.Seconds(), "chunks/s")
			b.ReportMetric(float64(f.Count())/float64(b.N)*1000/float64(len(chunks)), "req/1000chunks")
		})
	}
}
