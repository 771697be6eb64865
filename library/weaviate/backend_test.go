package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

// hasher is the offline embedder, small: the same vectors go into both
// libraries and the same query vectors come out.
var hasher = func() *embed.Hash {
	cfg := embed.DefaultHashConfig()
	cfg.Dimensions = 64
	return embed.NewHash(cfg)
}()

var identity = store.EmbedderInfo{Provider: "hash", Model: hasher.Identity().Model, Dimensions: 64}

func embedTexts(t *testing.T, texts []string) [][]float32 {
	t.Helper()
	vs, err := hasher.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// corpus is three documents of a few pages each.
var corpus = map[string][]string{
	"cats": {"Cats sleep up to sixteen hours a day. A cat grooms itself with its rough tongue.",
		"Kittens open their eyes after about a week. Young cats play to learn hunting.",
		"A purring cat is usually content, though cats also purr when hurt."},
	"volcanoes": {"A volcano erupts when magma rises through the crust.",
		"Basalt lava flows are runny; rhyolite magma is sticky and explosive.",
		"Ash clouds from an eruption can ground aircraft for days."},
	"bread": {"Sourdough bread rises with wild yeast and lactic bacteria.",
		"Knead the dough until it is smooth, then let it proof overnight."},
}

type putFunc func(doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error)

func putCorpus(t *testing.T, put putFunc) {
	t.Helper()
	for _, id := range []string{"bread", "cats", "volcanoes"} {
		d := &store.Document{ID: id, Title: id + ".pdf", SourcePath: "/lib/" + id + ".pdf", MediaType: "application/pdf",
			Pages: len(corpus[id]), IngestedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		var chunks []store.Chunk
		for i, p := range corpus[id] {
			d.PageStarts = append(d.PageStarts, len(d.Text))
			chunks = append(chunks, store.Chunk{Text: p, Start: len(d.Text), End: len(d.Text) + len(p), PageStart: i + 1, PageEnd: i + 1})
			d.Text += p
		}
		vecs := embedTexts(t, corpus[id])
		d.Size = int64(len(d.Text))
		if _, err := put(d, chunks, vecs, []byte("%PDF "+id)); err != nil {
			t.Fatalf("put %s: %v", id, err)
		}
	}
}

func embeddedLibrary(t *testing.T, opts library.Options) *library.Library {
	db, err := store.Open(filepath.Join(t.TempDir(), "lib.db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.SetEmbedder(identity); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, hasher, opts)
	if err != nil {
		t.Fatal(err)
	}
	putCorpus(t, func(d *store.Document, cs []store.Chunk, vs [][]float32, o []byte) (store.PutResult, error) {
		res, err := db.PutDocument(d, cs, vs, o)
		if err != nil {
			return res, err
		}
		return res, lib.Apply(context.Background(), res)
	})
	return lib
}

// openCollection starts a Weaviate node and opens collection name on it
// with the lexical analyzer and the test embedder's identity, closed with t.
func openCollection(t *testing.T, name string) *weaviate.Collection {
	t.Helper()
	c := weaviatetest.Start(t, weaviatetest.Options{})
	st, err := weaviate.OpenCollection(context.Background(), c.URL(0, name), &weaviate.Options{Analyzer: analysis.Tokenize, AnalyzerName: "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.SetEmbedder(context.Background(), identity); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSameAnswersAsEmbedded(t *testing.T) {
	ctx := context.Background()
	st := openCollection(t, "Parity")
	opts := library.OptionsFor(embed.TraitsOf(embed.Identity(identity)))
	be := weaviate.New(st, &weaviate.Options{Fusion: opts.Fusion, VectorWeight: opts.VectorWeight})
	putCorpus(t, func(d *store.Document, cs []store.Chunk, vs [][]float32, o []byte) (store.PutResult, error) {
		return be.Put(ctx, d, cs, vs, o)
	})
	remote := library.New(be, hasher, opts)
	local := embeddedLibrary(t, opts)

	for _, id := range []string{"cats", "cats:1", "volcanoes:2", "bread"} {
		want, err1 := local.Fetch(ctx, id, library.FetchOptions{})
		got, err2 := remote.Fetch(ctx, id, library.FetchOptions{})
		if err1 != nil || err2 != nil {
			t.Fatalf("fetch %s: embedded %v, weaviate %v", id, err1, err2)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fetch %s (-embedded +weaviate):\n%s", id, diff)
		}
	}
	for _, mode := range []library.Mode{library.Lexical, library.Vector, library.Hybrid} {
		for q, top := range map[string]string{"sticky explosive magma": "volcanoes:1", "kittens learn hunting": "cats:1", "sourdough yeast": "bread:0"} {
			got, err := remote.Search(ctx, q, library.SearchOptions{K: 3, Mode: mode})
			if err != nil {
				t.Fatalf("%s search %q: %v", mode, q, err)
			}
			want, _ := local.Search(ctx, q, library.SearchOptions{K: 3, Mode: mode})
			if mode == library.Lexical && !cmp.Equal(resultsIDs(got), resultsIDs(want)) {
				t.Errorf("lexical search %q: weaviate %v, embedded %v", q, resultIDs(got), resultIDs(want))
			}
			if len(got.Results) == 0 || got.Results[0].ID != top || want.Results[0].ID != top {
				t.Errorf("%s search %q: weaviate %v, embedded %v; want %s first", mode, q, resultIDs(got), resultIDs(want), top)
			} else if diff := cmp.Diff(want.Results[0], got.Results[0], cmpIgnoreScore); diff != "" {
				t.Errorf("%s search %q first result (-embedded +weaviate):\n%s", mode, q, diff)
			}
		}
	}
	checkCallerContext(t, be)
	checkLibraryContext(t, remote)
	checkOriginalSummaryRemove(t, local, remote)
}

// checkCallerContext: the seam's methods work within the caller's context
// (a cancelled one stops them) instead of one the backend makes up.
func checkCallerContext(t *testing.T, be *weaviate.Backend) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Documents": func() error { _, err := be.Documents(ctx); return err },
		"Document":  func() error { _, err := be.Document(ctx, "cats", true); return err },
		"Original":  func() error { _, _, _, err := be.Original(ctx, "cats"); return err },
		"Chunks":    func() error { _, err := be.Chunks(ctx, []uint64{1}); return err },
		"Delete":    func() error { _, err := be.Delete(ctx, "no-such-document"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v; want context.Canceled", name, err)
		}
	}
}

// checkLibraryContext: the Library's own writes and listings hand the
// caller's context to the backend, so a cancelled request stops them
// before they cross the network (cats stays: checkOriginalSummaryRemove
// removes it after).
func checkLibraryContext(t *testing.T, lib *library.Library) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lib.Remove(ctx, "cats"); !errors.Is(err, context.Canceled) {
		t.Errorf("Library.Remove with a cancelled context: %v; want context.Canceled", err)
	}
	if _, err := lib.Documents(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Library.Documents with a cancelled context: %v; want context.Canceled", err)
	}
}

// cmpIgnoreScore compares results without their scores (each backend
// scores its own way) or the library's unexported bookkeeping.
var cmpIgnoreScore = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Score" }, cmp.Ignore()),
	cmpopts.IgnoreUnexported(library.SearchResult{}),
}

func resultsIDs(r *library.SearchResponse) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, x.ID)
	}
	return out
}

func resultIDs(r *library.SearchResponse) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, fmt.Sprintf("%s(%.3f)", x.ID, x.Score))
	}
	return out
}

func checkOriginalSummaryRemove(t *testing.T, local, remote *library.Library) {
	ctx := context.Background()
	o, err := remote.Original(ctx, "cats")
	if err != nil {
		t.Fatalf("Original: %v", err)
	}
	if data, _ := io.ReadAll(o.Content); string(data) != "%PDF cats" || o.Size != 9 || o.ModTime.IsZero() {
		t.Errorf("Original = %+v with %q", o, data)
	}
	want, _ := local.Summary(ctx)
	got, err := remote.Summary(ctx)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Summary (-embedded +weaviate): %v\n%s", err, diff)
	}
	if n, err := remote.Remove(ctx, "cats"); err != nil || n != 3 {
		t.Errorf("Remove = %d, %v; want 3", n, err)
	}
	if _, err := remote.Fetch(ctx, "cats:0", library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("fetch after remove: %v", err)
	}
	h, err := remote.Check(ctx)
	if err != nil || !h.Consistent || h.Stats.Documents != 2 || h.Index.VectorPassages != 5 {
		t.Errorf("Check = %+v, %v", h, err)
	}
}
