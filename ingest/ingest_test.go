package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

type env struct {
	db  *store.DB
	lib *library.Library
	ex  *extract.Extractor
	emb embed.Embedder
	dir string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	db, emb, ex := synctest.Pipeline(t)
	lib, err := embedded.Open(context.Background(), db, emb, library.OptionsFor(embed.TraitsOf(emb.Identity())))
	if err != nil {
		t.Fatal(err)
	}
	return &env{db: db, lib: lib, ex: ex, emb: emb, dir: t.TempDir()}
}

func (e *env) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, "files", rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run ingests args through the library's write door, as cmd does: new
// documents committed in groups (Writes.GroupCommits).
func (e *env) run(t testing.TB, opts ingest.Options, args ...string) ingest.Summary {
	t.Helper()
	ctx := context.Background()
	w := e.lib.BeginWrites(ctx, e.emb, e.emb.Identity(), 0, 0, 0)
	w.GroupCommits()
	sum, err := ingest.New(w, e.ex, w.Embedder(), opts).Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, len(sum.Failed) == 0); err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestIngestIdempotentAndReplacesChangedFiles(t *testing.T) {
	e := newEnv(t)
	a := e.write(t, "a.md", "# Tides\n\nThe moon raises tides twice a day.")
	e.write(t, "sub/b.txt", "Glaciers carve valleys over millennia.")
	e.write(t, "c.bin", "\x00\x01")
	folder := filepath.Join(e.dir, "files")
	sum := e.run(t, ingest.Options{URLPrefix: "https://example.org/docs/"}, folder)
	if sum.Ingested != 2 || sum.Skipped != 1 || len(sum.Failed) != 0 {
		t.Fatalf("first run: %+v", sum)
	}
	d, err := e.db.DocumentByPath(a)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Tides" || d.SourceURL != "https://example.org/docs/a.md" || d.MediaType != "text/markdown" || len(d.ID) != 16 {
		t.Fatalf("document = %+v", d)
	}
	if sum := e.run(t, ingest.Options{URLPrefix: "https://example.org/docs/"}, folder); sum.Ingested != 0 || sum.Unchanged != 2 {
		t.Fatalf("second run: %+v", sum)
	}
	e.write(t, "a.md", "# Tides\n\nSpring tides happen at new and full moon.")
	sum = e.run(t, ingest.Options{URLPrefix: "https://example.org/docs/"}, folder)
	if sum.Ingested != 1 || sum.Unchanged != 1 || sum.Removed == 0 {
		t.Fatalf("changed file: %+v", sum)
	}
	if _, err := e.db.Document(d.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old version still stored: %v", err)
	}
	if st, _ := e.db.Stats(); st.Documents != 2 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestIngestFailuresAndDuplicates(t *testing.T) {
	e := newEnv(t)
	e.write(t, "one.txt", "Identical content about volcanoes.")
	e.write(t, "two.txt", "Identical content about volcanoes.")
	e.write(t, "big.txt", strings.Repeat("large ", 400))
	e.write(t, "bad.pdf", "%PDF-1.7\n garbage")
	var report strings.Builder
	sum := e.run(t, ingest.Options{MaxBytes: 1000, Report: &report}, filepath.Join(e.dir, "files"))
	if sum.Ingested != 1 || sum.Duplicates != 1 || len(sum.Failed) != 2 {
		t.Fatalf("summary = %+v\n%s", sum, report.String())
	}
	var tooLarge, malformed bool
	for _, f := range sum.Failed {
		tooLarge = tooLarge || (errors.Is(f, extract.ErrTooLarge) && strings.HasSuffix(f.Path, "big.txt"))
		malformed = malformed || strings.HasSuffix(f.Path, "bad.pdf")
	}
	if !tooLarge || !malformed {
		t.Fatalf("failures = %v", sum.Failed)
	}
	if !strings.Contains(report.String(), "same content as") {
		t.Fatalf("report = %s", report.String())
	}
}

// TestIngestWritesThroughTheLibrary: what an ingest stores reaches the
// library's indexes through its one door, a re-ingest replacing the
// passages it stored before, and progress is reported at the start, after
// each file and at the end.
func TestIngestWritesThroughTheLibrary(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "x.txt", strings.Repeat("Sentence about rivers and deltas. ", 200))
	e.write(t, "y.txt", "A short note on estuaries.")
	var seen []ingest.Progress
	progress := func(p ingest.Progress) { seen = append(seen, p) }
	first := e.run(t, ingest.Options{Progress: progress}, filepath.Join(e.dir, "files"))
	again := e.run(t, ingest.Options{Force: true}, p)
	if first.Chunks < 3 || again.Removed != again.Chunks || again.Chunks != first.Chunks-1 {
		t.Fatalf("first run %+v, forced re-ingest %+v", first, again)
	}
	st, err := e.db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if ix := e.lib.IndexStats(context.Background()); ix.LexicalPassages != st.Chunks || ix.VectorPassages != st.Chunks || st.Chunks != first.Chunks {
		t.Fatalf("indexes %+v, store %d passages, ingested %d", ix, st.Chunks, first.Chunks)
	}
	resp, err := e.lib.Search(context.Background(), "estuaries", library.SearchOptions{K: 1, Mode: library.Lexical})
	if err != nil || len(resp.Results) != 1 || !strings.HasSuffix(resp.Results[0].Source, "y.txt") {
		t.Fatalf("search = %+v, %v", resp, err)
	}
	want := []ingest.Progress{{Total: 2}, {Files: 1, Total: 2}, {Files: 2, Total: 2}, {Files: 2, Total: 2, Done: true}}
	if len(seen) != len(want) || seen[3].Passages != first.Chunks || seen[3].Pages != first.Pages {
		t.Fatalf("progress = %+v, want %d reports ending with %d pages, %d passages", seen, len(want), first.Pages, first.Chunks)
	}
	for i, w := range want {
		if got := seen[i]; got.Files != w.Files || got.Total != w.Total || got.Done != w.Done {
			t.Errorf("progress report %d = %+v, want %+v", i, got, w)
		}
	}
}

// TestIngestKeepsHeadings ingests Markdown with sections: each passage is
// stored with its heading path, and its vector is that of the path and the
// text together.
func TestIngestKeepsHeadings(t *testing.T) {
	e := newEnv(t)
	body := strings.Repeat("Filler sentence about nothing in particular. ", 40)
	p := e.write(t, "guide.md", "# Guide\n\n## Install\n\n"+body+"\n\n## Usage\n\n"+strings.Repeat("Run it with care. ", 30)+"\n")
	e.run(t, ingest.Options{Chunk: chunk.Options{Size: 256, Overlap: 16}}, p)
	d, err := e.db.DocumentByPath(p)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := e.db.Chunks(d.Chunks)
	if err != nil {
		t.Fatal(err)
	}
	last := chunks[len(chunks)-1]
	if got := last.Headings; len(got) != 2 || got[0] != "Guide" || got[1] != "Usage" || !strings.HasPrefix(last.Text, "Usage") {
		t.Fatalf("last passage %q has headings %q", last.Text, got)
	}
	if got := chunks[0].Headings; len(got) != 2 || got[1] != "Install" {
		t.Fatalf("first passage has headings %q", got)
	}
	want, err := e.emb.Embed(context.Background(), []string{last.IndexText()})
	if err != nil {
		t.Fatal(err)
	}
	var got []float32
	if err := e.db.View(func(tx *store.Tx) error { got = tx.Vector(last.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want[0]) || got[0] != want[0][0] || got[len(got)-1] != want[0][len(got)-1] {
		t.Fatal("the stored vector is not the embedding of the heading path and text")
	}
}
