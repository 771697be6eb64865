package sync_test

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

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/store"
)

// storeLibrary is the sync.Library of a bare store, as the live library
// behaves minus its in-memory indexes.
type storeLibrary struct{ db *store.DB }

func (l storeLibrary) Documents() ([]*store.Document, error) { return l.db.Documents() }
func (l storeLibrary) Remove(id string) (int, error) {
	r, err := l.db.DeleteDocument(id)
	return len(r), err
}
func (l storeLibrary) Move(id, path, url string, mt time.Time) error {
	_, err := l.db.MoveDocument(id, path, url, mt)
	return err
}

// countingExtractor counts extractions and remembers what it saw per path.
type countingExtractor struct {
	ex   *extract.Extractor
	n    atomic.Int64
	mu   gosync.Mutex
	seen map[string][]string // path -> contents extracted, in order
}

func (c *countingExtractor) Extract(ctx context.Context, name string, data []byte) (*extract.Document, error) {
	c.n.Add(1)
	c.mu.Lock()
	c.seen[name] = append(c.seen[name], string(data))
	c.mu.Unlock()
	return c.ex.Extract(ctx, name, data)
}

// countingEmbedder counts the passages embedded.
type countingEmbedder struct {
	emb embed.Embedder
	n   atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.n.Add(int64(len(texts)))
	return c.emb.Embed(ctx, texts)
}

// fixture is a store, a folder tree and a Syncer ingesting with the real
// ingest pipeline (offline embedder).
type fixture struct {
	db   *store.DB
	dir  string
	ex   *countingExtractor
	emb  *countingEmbedder
	sync *isync.Syncer
	opts isync.Options
	rep  strings.Builder
}

// MustFixture opens a fresh library and checks its invariants on cleanup.
func MustFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "lib.db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	h := embed.NewHash(embed.DefaultHashConfig())
	id := h.Identity()
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: id.Provider, Model: id.Model, Dimensions: id.Dimensions}); err != nil {
		t.Fatal(err)
	}
	ex, err := extract.New(context.Background(), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, dir: dir, ex: &countingExtractor{ex: ex, seen: map[string][]string{}}, emb: &countingEmbedder{emb: h}}
	f.opts = isync.Options{Library: storeLibrary{db}, Ingest: f.ingest, Report: &f.rep, Verbose: true}
	f.sync = isync.New(f.opts)
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("library invariants: %v", err)
		}
		ex.Close()
		db.Close()
	})
	return f
}

func (f *fixture) ingest(ctx context.Context, r isync.Root, files []discover.File) (ingest.Summary, error) {
	return ingest.New(f.db, f.ex, f.emb, ingest.Options{Chunk: r.Chunk, URLPrefix: r.URLPrefix}).Files(ctx, files)
}

// root returns a Root for folder rel below the fixture.
func (f *fixture) root(rel string) isync.Root {
	return isync.Root{Path: filepath.Join(f.dir, rel), Chunk: chunk.DefaultOptions()}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

func (f *fixture) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) run(t testing.TB, roots ...isync.Root) isync.Summary {
	t.Helper()
	sum, err := f.sync.Run(context.Background(), roots)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// sources lists the library's documents' paths relative to the fixture.
func (f *fixture) sources(t testing.TB) []string {
	t.Helper()
	docs, err := f.db.Documents()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		rel, _ := filepath.Rel(f.dir, d.SourcePath)
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// counts is the summary's headline numbers, for compact asserts.
type counts struct{ Added, Updated, Moved, Removed, Unchanged, Failed int }

func countsOf(s isync.Summary) counts {
	return counts{s.Added, s.Updated, s.Moved, s.Removed, s.Unchanged, len(s.Failed)}
}
