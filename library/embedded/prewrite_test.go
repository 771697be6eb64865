package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestWritesBetweenPrewriteAndSave: document writes that land between a
// BM25 segment's steps (PrewriteSegment) and the Save's transaction, as an
// ingest's do, are saved as records beside the segment the steps wrote:
// the Save allocates about what it does with no such write. It used to
// write the whole segment again in its one transaction, after copying the
// old one out of the map, about three times the segment more (the spikes
// of a 1M ingest, docs/benchmarks/ingest-spikes.md). A kill between the
// steps and the Save, and one after it, leave a library that opens with
// every stored passage and searches as the one that went on.
func TestWritesBetweenPrewriteAndSave(t *testing.T) {
	defer embedded.SetAdopt(true, 100)()
	quiet, _, _ := prewriteThenSave(t, nil)
	dir := t.TempDir()
	var lex *lexical.Index
	busy, segment, path := prewriteThenSave(t, func(lib *library.Library, db *store.DB, path string) {
		putWordy(t, lib, db, 99)
		copyFile(t, path, filepath.Join(dir, "between.db"))
		lex = embedded.LexIndex(lib)
	})
	t.Logf("the Save after the steps allocated %d KiB, %d KiB with a write before it, for a segment of %d KiB",
		quiet>>10, busy>>10, segment>>10)
	if busy > quiet+segment/2 {
		t.Errorf("a write between the steps and the Save made it allocate %d KiB instead of %d, want under half the segment's %d KiB more",
			busy>>10, quiet>>10, segment>>10)
	}
	copyFile(t, path, filepath.Join(dir, "after.db"))
	queries := []string{"m99x7 w5", "w17 w230 w1999", "m3x41", "w1 w2 w3 w4"}
	for _, name := range []string{"between.db", "after.db"} {
		other := openCopy(t, filepath.Join(dir, name))
		if st := other.IndexStats(context.Background()); st.LexicalPassages != 3700 {
			t.Errorf("%s: %d passages, want 3700", name, st.LexicalPassages)
		}
		for _, q := range queries {
			got, want := embedded.LexIndex(other).Search(q, 10), lex.Search(q, 10)
			if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
				t.Errorf("%s: %q = %v, want %v", name, q, got, want)
			}
		}
	}
}

// prewriteThenSave ingests 2,500 passages into a new library, folds them
// into a segment (read in place), adds 1,100 more and saves, which writes
// a new segment in steps, running between (if not nil) between the steps
// and the Save's transaction. It returns the bytes the heap allocated
// from then until the Save returned, the new segment's size and the
// library's path; the library stays open until the test ends.
func prewriteThenSave(t *testing.T, between func(lib *library.Library, db *store.DB, path string)) (allocs, segment uint64, path string) {
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "lib.db")
	lib, db, lex := openForIngest(t, path)
	t.Cleanup(func() { db.Close() })
	for d := range 25 {
		putWordy(t, lib, db, d)
	}
	if err := lib.Fold(ctx); err != nil {
		t.Fatal(err)
	}
	for d := 25; d < 36; d++ { // 1,100 records: the next Save writes a segment
		putWordy(t, lib, db, d)
	}
	var before uint64
	restore := embedded.AfterPrewrite(func() {
		if between != nil {
			between(lib, db, path)
		}
		before = heapAllocs()
	})
	err := lib.Save(ctx)
	allocs = heapAllocs() - before
	restore()
	if err != nil {
		t.Fatal(err)
	}
	return allocs, uint64(lex.SegmentBytes()), path
}

// heapAllocs is the bytes allocated on the heap so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// openCopy opens the library file path, as the next process would.
func openCopy(t *testing.T, path string) *library.Library {
	t.Helper()
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	lib, err := embedded.Open(context.Background(), db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// putWordy writes document d of 100 passages of 40 words drawn from 2,000,
// each with a word of its own (m<d>x<i>), and applies it to lib.
func putWordy(t *testing.T, lib *library.Library, db *store.DB, d int) {
	rng := rand.New(rand.NewPCG(uint64(d), 7))
	chunks := make([]store.Chunk, 100)
	vecs := make([][]float32, len(chunks))
	for i := range chunks {
		words := []string{fmt.Sprintf("m%dx%d", d, i)}
		for range 40 {
			words = append(words, fmt.Sprintf("w%d", rng.IntN(2000)))
		}
		text := strings.Join(words, " ")
		chunks[i] = store.Chunk{Text: text, End: len(text), PageStart: 1, PageEnd: 1}
		vecs[i] = wordEmbedder.Vector(text)
	}
	doc := &store.Document{ID: fmt.Sprintf("wordy-%d", d), Title: "doc.txt", SourcePath: fmt.Sprintf("/wordy/%d", d), MediaType: "text/plain", Pages: 1, PageStarts: []int{0}}
	res, err := db.PutDocument(doc, chunks, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.Apply(context.Background(), res); err != nil {
		t.Fatal(err)
	}
}
