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
	"github.com/mcpvec/mcpvec/store"
)

type env struct {
	db  *store.DB
	ex  *extract.Extractor
	emb embed.Embedder
	dir string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	db, emb, ex := synctest.Pipeline(t)
	return &env{db: db, ex: ex, emb: emb, dir: t.TempDir()}
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

func (e *env) run(t testing.TB, opts ingest.Options, args ...string) ingest.Summary {
	t.Helper()
	sum, err := ingest.New(e.db, e.ex, e.emb, opts).Run(context.Background(), args)
	if err != nil {
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

func TestIngestOnWriteSeesEveryChange(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "x.txt", strings.Repeat("Sentence about rivers and deltas. ", 200))
	var added, removed int
	onWrite := func(r store.PutResult) error { added += len(r.Added); removed += len(r.Removed); return nil }
	e.run(t, ingest.Options{OnWrite: onWrite}, p)
	first := added
	e.run(t, ingest.Options{OnWrite: onWrite, Force: true}, p)
	if first < 2 || removed != first || added != 2*first {
		t.Fatalf("added %d removed %d (first run %d)", added, removed, first)
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
