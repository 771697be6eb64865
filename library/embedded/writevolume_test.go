package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// ingestVolume ingests docs documents of per passages (Zipf words, 64
// dimensions) into a new library at path through a write session, as
// `mcpvec ingest` does (grouped: Writes.GroupCommits), saving the indexes
// every save documents and finishing with a Fold, and returns what the
// store wrote and the file's size.
func ingestVolume(t *testing.T, path string, docs, per, save int, grouped bool) (store.WriteVolume, int64) {
	t.Helper()
	lib, db, _ := openForIngest(t, path)
	ctx := context.Background()
	w := lib.BeginWrites(ctx, wordEmbedder, embed.Identity{Provider: "test", Model: "words", Dimensions: 64}, 0, 0, 0)
	if grouped {
		w.GroupCommits()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, 50000)
	for d := range docs {
		chunks, vecs := zipfChunks(per, rng, zipf)
		doc := &store.Document{ID: fmt.Sprintf("vol-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/vol/%d", d),
			MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
		if _, err := w.Put(ctx, doc, chunks, vecs, nil); err != nil {
			t.Fatal(err)
		}
		if (d+1)%save == 0 {
			if err := lib.Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Finish(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := lib.IndexStats(ctx).LexicalPassages; got != docs*per {
		t.Errorf("%d passages indexed, want %d", got, docs*per)
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

// TestIngestWriteVolume: an ingest of 2,000 small documents (8,000
// passages) writes at most 3 times the final file's size. Committing each
// document on its own, with bbolt's freelist rewritten at every commit,
// wrote 6.3 times it here (and 8.9 times at 100k passages, where the
// freelist grows with the free pages of rewritten BM25 segments; see
// docs/benchmarks/ingest-writes.md). The store's counts are checked
// against the library's document count too.
func TestIngestWriteVolume(t *testing.T) {
	v, size := ingestVolume(t, filepath.Join(t.TempDir(), "vol.db"), 2000, 4, 250, true)
	ratio := float64(v.Bytes()) / float64(size)
	t.Logf("commits %d, pages %d KiB (freelist %d KiB), meta %d KiB; file %d KiB; written / file %.2f",
		v.Commits, v.PageBytes>>10, v.FreelistBytes>>10, v.MetaBytes>>10, size>>10, ratio)
	if ratio > 3 {
		t.Errorf("the ingest wrote %.2f times the file's size (%d KiB for %d KiB), more than 3", ratio, v.Bytes()>>10, size>>10)
	}
}

// TestIngestWriteVolumeUngrouped measures the same ingest with a commit
// per document (MCPVEC_WRITEVOLUME=1; for the write-up).
func TestIngestWriteVolumeUngrouped(t *testing.T) {
	if os.Getenv("MCPVEC_WRITEVOLUME") == "" {
		t.Skip("set MCPVEC_WRITEVOLUME=1 to measure")
	}
	v, size := ingestVolume(t, filepath.Join(t.TempDir(), "vol.db"), 2000, 4, 250, false)
	t.Logf("commits %d, pages %d KiB (freelist %d KiB), meta %d KiB; file %d KiB; written / file %.2f",
		v.Commits, v.PageBytes>>10, v.FreelistBytes>>10, v.MetaBytes>>10, size>>10, float64(v.Bytes())/float64(size))
}
