// Package synctest gives tests of sync and watch a library on a temporary
// folder, synced with the real ingest pipeline and the offline embedder,
// counting extractions and embedded passages. It is for tests only.
package synctest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// StoreLibrary is the sync.Library and the ingest.Library of a bare
// store: the live library minus its in-memory indexes.
type StoreLibrary struct{ db *store.DB }

func (l StoreLibrary) DocumentByPath(_ context.Context, path string) (*store.Document, error) {
	return l.db.DocumentByPath(path)
}
func (l StoreLibrary) DocumentInfo(_ context.Context, id string) (*store.Document, error) {
	return l.db.DocumentInfo(id)
}
func (l StoreLibrary) Put(_ context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error) {
	return l.db.PutDocument(doc, chunks, vecs, original)
}

func (l StoreLibrary) Documents(context.Context) ([]*store.Document, error) {
	return l.db.Documents()
}
func (l StoreLibrary) Remove(_ context.Context, id string) (int, error) {
	r, err := l.db.DeleteDocument(id)
	return len(r), err
}
func (l StoreLibrary) Move(_ context.Context, id, path, url string, mt time.Time) error {
	_, err := l.db.MoveDocument(id, path, url, mt)
	return err
}

// CountingExtractor counts extractions and remembers what it saw per path.
type CountingExtractor struct {
	ex   *extract.Extractor
	N    atomic.Int64
	Mu   gosync.Mutex        // guards Seen
	Seen map[string][]string // path -> contents extracted, in order
}

func (c *CountingExtractor) Extract(ctx context.Context, name string, data []byte) (*extract.Document, error) {
	c.N.Add(1)
	c.Mu.Lock()
	c.Seen[name] = append(c.Seen[name], string(data))
	c.Mu.Unlock()
	return c.ex.Extract(ctx, name, data)
}

// CountingEmbedder counts the passages embedded.
type CountingEmbedder struct {
	emb embed.Embedder
	N   atomic.Int64
}

func (c *CountingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.N.Add(int64(len(texts)))
	return c.emb.Embed(ctx, texts)
}

// fixture is a store, a folder tree and a Syncer ingesting with the real
// ingest pipeline (offline embedder).
type Fixture struct {
	DB     *store.DB
	Dir    string
	Ex     *CountingExtractor
	Emb    *CountingEmbedder
	Sync   *isync.Syncer
	Opts   isync.Options
	Report Buffer
}

// MustFixture opens a fresh library and checks its invariants on cleanup.
func MustFixture(t testing.TB) *Fixture {
	t.Helper()
	db, h, ex := Pipeline(t)
	f := &Fixture{DB: db, Dir: t.TempDir(), Ex: &CountingExtractor{ex: ex, Seen: map[string][]string{}}, Emb: &CountingEmbedder{emb: h}}
	f.Opts = isync.Options{Library: StoreLibrary{db}, Ingest: f.ingest, Report: &f.Report, Verbose: true}
	f.Sync = isync.New(f.Opts)
	return f
}

// Pipeline returns what the real ingest pipeline runs on: a fresh library
// (its invariants checked on cleanup) set up for the offline embedder, that
// embedder (built as mcpvec builds it, embed.Open), and an extractor closed
// on cleanup.
func Pipeline(t testing.TB) (*store.DB, embed.Embedder, *extract.Extractor) {
	t.Helper()
	db := storetest.MustOpen(t, nil)
	h, err := embed.Open(context.Background(), embed.Identity{Provider: embed.HashProvider}, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetEmbedder(store.EmbedderInfo(h.Identity())); err != nil {
		t.Fatal(err)
	}
	ex, err := extract.New(context.Background(), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return db, h, ex
}

func (f *Fixture) ingest(ctx context.Context, r isync.Root, files []discover.File) (ingest.Summary, error) {
	return ingest.New(StoreLibrary{f.DB}, f.Ex, f.Emb, ingest.Options{Chunk: r.Chunk, URLPrefix: r.URLPrefix}).Files(ctx, files)
}

// root returns a Root for folder rel below the fixture.
func (f *Fixture) Root(rel string) isync.Root {
	return isync.Root{Path: filepath.Join(f.Dir, rel), Chunk: chunk.DefaultOptions()}
}

func (f *Fixture) Path(rel string) string { return filepath.Join(f.Dir, filepath.FromSlash(rel)) }

func (f *Fixture) Write(t testing.TB, rel, content string) string {
	t.Helper()
	p := f.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *Fixture) Run(t testing.TB, roots ...isync.Root) isync.Summary {
	t.Helper()
	sum, err := f.Sync.Run(context.Background(), roots)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// sources lists the library's documents' paths relative to the fixture.
func (f *Fixture) Sources(t testing.TB) []string {
	t.Helper()
	docs, err := f.DB.Documents()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		rel, _ := filepath.Rel(f.Dir, d.SourcePath)
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// WantSources fails t, showing the difference and the sync report, unless
// the library's documents are exactly want (paths relative to the fixture,
// sorted).
func (f *Fixture) WantSources(t testing.TB, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, f.Sources(t)); diff != "" {
		t.Fatalf("library sources (-want +got):\n%s\n%s", diff, f.Report.String())
	}
}

// Counts is the summary's headline numbers, for compact asserts.
type Counts struct{ Added, Updated, Moved, Removed, Unchanged, Failed int }

// countsOf returns the headline numbers of s.
func countsOf(s isync.Summary) Counts {
	return Counts{s.Added, s.Updated, s.Moved, s.Removed, s.Unchanged, len(s.Failed)}
}

// WantCounts fails t, showing the sync report, unless the headline numbers
// of sum, the summary of the sync named what, are want.
func (f *Fixture) WantCounts(t testing.TB, what string, sum isync.Summary, want Counts) {
	t.Helper()
	if got := countsOf(sum); got != want {
		t.Fatalf("%s = %+v, want %+v\n%s", what, got, want, f.Report.String())
	}
}

// Buffer is a strings.Builder safe for concurrent use.
type Buffer struct {
	mu gosync.Mutex
	b  strings.Builder
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Reset forgets what was written.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
