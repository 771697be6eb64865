package ingest_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
)

// corpusDir is the shared real-world PDF corpus (not part of the project).
const corpusDir = "../../shared/pdfs/corpus"

// BenchmarkIngestPDFCorpus ingests every PDF of the shared corpus into a new
// library per iteration: extraction (pdfium-wasm, fallback worker disabled),
// chunking, offline embedding, one transaction per document (fsync on) and
// the library's indexing of what it stored, through its write door as
// `mcpvec ingest` writes. Reports pages/s and passages/s.
func BenchmarkIngestPDFCorpus(b *testing.B) {
	if _, err := os.Stat(corpusDir); err != nil {
		b.Skipf("shared PDF corpus not found at %s", corpusDir)
	}
	var pages, chunks int
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b)
		b.StartTimer()
		sum := e.run(b, ingest.Options{}, corpusDir)
		pages += sum.Pages
		chunks += sum.Chunks
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(pages)/secs, "pages/s")
	b.ReportMetric(float64(chunks)/secs, "passages/s")
}

// BenchmarkEmbedHash measures the offline embedder alone on 256-token
// passages of English-like text.
func BenchmarkEmbedHash(b *testing.B) {
	e := newEnv(b)
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("the cat sat on a mat while researchers measured territorial behaviour in domestic felines across seasons and homes")
	texts := make([]string, 256)
	for i := range texts {
		var sb strings.Builder
		for sb.Len() < 1100 {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		texts[i] = sb.String()
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.emb.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "passages/s")
}

// BenchmarkIngestText ingests generated text files (no PDF extraction) to
// show the pipeline's own cost: chunking, embedding, the store and the
// library's indexes.
func BenchmarkIngestText(b *testing.B) {
	var chunks int
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b)
		var dir string
		for i := range 50 {
			dir = filepath.Dir(e.write(b, fmt.Sprintf("gen/%02d.txt", i), strings.Repeat(fmt.Sprintf("Paragraph %d about ledgers, tides and lanterns. ", i), 400)))
		}
		b.StartTimer()
		chunks += e.run(b, ingest.Options{Chunk: chunk.DefaultOptions()}, dir).Chunks
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "passages/s")
}
