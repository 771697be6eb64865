package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestIngestHeapSlope measures the live heap of a long ingest as it grows:
// MCPVEC_INGESTBOUND_PASSAGES passages (skipped when unset) of ~60
// Zipf-distributed words, written 100 a document and saved every 2,000
// passages (as `mcpvec ingest` saves every 30 s), the heap in use after a
// collection logged every tenth of the way, with the BM25 index reading
// each segment it writes in place (adopt) and holding it (as before). See
// docs/benchmarks/ingest-bound.md.
func TestIngestHeapSlope(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MCPVEC_INGESTBOUND_PASSAGES"))
	if n <= 0 {
		t.Skip("set MCPVEC_INGESTBOUND_PASSAGES to measure")
	}
	for _, adopt := range []bool{false, true, false, true} {
		restore := embedded.SetAdopt(adopt, 8192)
		var row []string
		path := filepath.Join(t.TempDir(), fmt.Sprint(adopt, ".db"))
		lib, db, _ := openForIngest(t, path)
		rng := rand.New(rand.NewPCG(1, 2))
		zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, 50000)
		for d := 0; d*100 < n; d++ {
			putZipf(t, lib, db, d, rng, zipf)
			if (d+1)%20 == 0 {
				if err := lib.Save(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if (d+1)*100%(n/10) == 0 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				row = append(row, fmt.Sprintf("%dk:%d", (d+1)/10, ms.HeapInuse>>20))
			}
		}
		t.Logf("adopt %v: heap in use (MiB) by passages: %s", adopt, strings.Join(row, " "))
		db.Close()
		restore()
	}
}

// zipfChunks makes n one-page passages of 40 to 79 words drawn from zipf
// ("w123"), each with a 64-dimension vector of one 1 at a place rng picks.
func zipfChunks(n int, rng *rand.Rand, zipf *rand.Zipf) ([]store.Chunk, [][]float32) {
	chunks := make([]store.Chunk, n)
	vecs := make([][]float32, n)
	var b strings.Builder
	for i := range chunks {
		b.Reset()
		for range 40 + rng.IntN(40) {
			fmt.Fprintf(&b, "w%d ", zipf.Uint64())
		}
		chunks[i] = store.Chunk{Text: b.String(), End: b.Len(), PageStart: 1, PageEnd: 1}
		vecs[i] = make([]float32, 64)
		vecs[i][rng.IntN(64)] = 1
	}
	return chunks, vecs
}

// putZipf stores document d of 100 passages of 40-80 words drawn from
// zipf, with 64-dimension vectors, and applies it to lib.
func putZipf(t *testing.T, lib *library.Library, db *store.DB, d int, rng *rand.Rand, zipf *rand.Zipf) {
	t.Helper()
	chunks, vecs := zipfChunks(100, rng, zipf)
	doc := &store.Document{ID: fmt.Sprintf("zipf-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/zipf/%d", d), MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
	res, err := db.PutDocument(doc, chunks, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.Apply(context.Background(), res); err != nil {
		t.Fatal(err)
	}
}
