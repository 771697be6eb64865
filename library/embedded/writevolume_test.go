package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// ingestVolume ingests docs documents of per passages (Zipf words, 64
// dimensions) into a new library at path, saving every save documents
// and at the end, and returns what the store wrote and the file's size.
func ingestVolume(t *testing.T, path string, docs, per, save int) (store.WriteVolume, int64) {
	t.Helper()
	lib, db, _ := openForIngest(t, path)
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, 50000)
	var b strings.Builder
	for d := range docs {
		chunks := make([]store.Chunk, per)
		vecs := make([][]float32, per)
		for i := range chunks {
			b.Reset()
			for range 40 + rng.IntN(40) {
				fmt.Fprintf(&b, "w%d ", zipf.Uint64())
			}
			chunks[i] = store.Chunk{Text: b.String(), End: b.Len(), PageStart: 1, PageEnd: 1}
			vecs[i] = make([]float32, 64)
			vecs[i][rng.IntN(64)] = 1
		}
		doc := &store.Document{ID: fmt.Sprintf("vol-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/vol/%d", d),
			MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
		res, err := db.PutDocument(doc, chunks, vecs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := lib.Apply(context.Background(), res); err != nil {
			t.Fatal(err)
		}
		if (d+1)%save == 0 {
			if err := lib.Save(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := lib.Fold(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := db.WriteVolume()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return v, fi.Size()
}

func TestIngestWriteVolumeExplore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vol.db")
	v, size := ingestVolume(t, path, 5000, 4, 250)
	t.Logf("commits %d pages %d MiB freelist %d MiB meta %d MiB largest freelist %d KiB; file %d MiB; ratio %.1f",
		v.Commits, v.PageBytes>>20, v.FreelistBytes>>20, v.MetaBytes>>20, v.LargestFreelist>>10, size>>20, float64(v.Bytes())/float64(size))
}
