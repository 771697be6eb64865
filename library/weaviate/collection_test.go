package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
	"github.com/mcpvec/mcpvec/store"
)

const dims = 8

var testEmbedder = store.EmbedderInfo{Provider: "test", Model: "axes", Dimensions: dims}

// axis is a unit vector along axis i (mod dims), tilted a little toward the
// next axis so no two passages tie.
func axis(i int) []float32 {
	v := make([]float32, dims)
	v[i%dims] = 1
	v[(i+1)%dims] = 0.1
	n := float32(math.Sqrt(1.01))
	for j := range v {
		v[j] /= n
	}
	return v
}

// mustOpen opens collection on node 0 of c with the test embedder and
// closes it on cleanup.
func mustOpen(tb testing.TB, c *weaviatetest.Cluster, node int, collection string, opts *weaviate.Options) *weaviate.Collection {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if opts == nil {
		opts = &weaviate.Options{}
	}
	if opts.APIKey == "" {
		opts.APIKey = c.APIKey()
	}
	b, err := weaviate.OpenCollection(ctx, c.URL(node, collection), opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { b.Close() })
	if err := b.SetEmbedder(ctx, testEmbedder); err != nil {
		tb.Fatalf("set embedder: %v", err)
	}
	return b
}

// fixture is a document ready to put.
type fixture struct {
	d      *store.Document
	chunks []store.Chunk
	vecs   [][]float32
}

// testDoc is a document of len(texts) one-page passages; passage i has
// vector axis(first+i).
func testDoc(id, path string, first int, texts ...string) fixture {
	d := &store.Document{ID: id, Title: "Title of " + id, SourcePath: path, MediaType: "application/pdf",
		SHA256: "sha-" + id, Size: 1234, Pages: len(texts), IngestedAt: time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC)}
	var chunks []store.Chunk
	var vecs [][]float32
	for i, t := range texts {
		d.PageStarts = append(d.PageStarts, len(d.Text))
		chunks = append(chunks, store.Chunk{Text: t, Start: len(d.Text), End: len(d.Text) + len(t), PageStart: i + 1, PageEnd: i + 1})
		d.Text += t
		vecs = append(vecs, axis(first+i))
	}
	return fixture{d, chunks, vecs}
}

func put(tb testing.TB, b *weaviate.Collection, f fixture, original []byte) store.PutResult {
	tb.Helper()
	res, err := b.PutDocument(context.Background(), f.d, f.chunks, f.vecs, original)
	if err != nil {
		tb.Fatalf("put %s: %v", f.d.ID, err)
	}
	return res
}

func ids(hits []weaviate.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chunk.ID()
	}
	return out
}

// TestSingleNode runs every single-node scenario against one real server.
func TestSingleNode(t *testing.T) {
	start := time.Now()
	c := weaviatetest.Start(t, weaviatetest.Options{APIKey: "test-key"})
	t.Logf("one node ready in %v", time.Since(start).Round(time.Millisecond))
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, c) })
	t.Run("Search", func(t *testing.T) { testSearch(t, c) })
	t.Run("RePutReplaces", func(t *testing.T) { testRePut(t, c) })
	t.Run("PutDocuments", func(t *testing.T) { testPutDocuments(t, c) })
	t.Run("Settings", func(t *testing.T) { testSettings(t, c) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, c) })
	t.Run("Analyzer", func(t *testing.T) { testAnalyzer(t, c) })
	t.Run("OlderSchemaGainsHeadings", func(t *testing.T) { testOlderSchema(t, c) })
	t.Run("Migrate", func(t *testing.T) { testMigrate(t, c) })
	t.Run("Reindex", func(t *testing.T) { testReindex(t, c) })
}

func testAnalyzer(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	stemmed := &weaviate.Options{Analyzer: analysis.Tokenize, AnalyzerName: "lexical-v1"}
	b := mustOpen(t, c, 0, "Stemmed", stemmed)
	put(t, b, testDoc("b", "/lib/b.pdf", 3, "A purring kitten naps on the sofa.", "Old cats sleep in the sun."), nil)
	for _, q := range []string{"kittens purred", "sleeping cat"} {
		hits, err := b.Lexical(ctx, q, 3)
		if err != nil || len(hits) != 1 {
			t.Errorf("stemmed Lexical(%q) = %v, %v; want one hit", q, ids(hits), err)
		}
	}
	if hits, err := b.Lexical(ctx, "the of and", 3); err != nil || len(hits) != 0 {
		t.Errorf("stopwords only: %v, %v; want no hits", ids(hits), err)
	}
	var hits []weaviate.Hit
	hy, err := b.Hybrid(ctx, weaviate.HybridQuery{Text: "kittens", Vector: axis(4), Limit: 2, Alpha: 0.3})
	if err != nil || len(hy) != 2 || hy[0].Chunk.ID() != "b:0" {
		t.Errorf("stemmed Hybrid = %v, %v; want b:0 first", ids(hy), err)
	}
	// A passage's heading path is searched with it and read back with it.
	f := testDoc("h", "/lib/h.pdf", 5, "Whiskers twitch before the pounce.")
	f.chunks[0].Headings = []string{"Feline behaviour", "Hunting"}
	put(t, b, f, nil)
	hits, err = b.Lexical(ctx, "feline hunting", 3)
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID() != "h:0" || !slices.Equal(hits[0].Chunk.Headings, f.chunks[0].Headings) {
		t.Errorf("Lexical on heading words = %v, %v; want h:0 with its headings", ids(hits), err)
	}
	for _, o := range []*weaviate.Options{{APIKey: c.APIKey()}, {APIKey: c.APIKey(), Analyzer: analysis.Tokenize, AnalyzerName: "lexical-v2"}} {
		if _, err := weaviate.OpenCollection(ctx, c.URL(0, "Stemmed"), o); !errors.Is(err, weaviate.ErrSchema) {
			t.Errorf("open with analyzer %+v: %v, want ErrSchema", o, err)
		}
	}
	// A later analyzer that names this one compatible opens it (with a warning).
	later := &weaviate.Options{APIKey: c.APIKey(), Analyzer: analysis.Tokenize, AnalyzerName: "lexical-v2", Compatible: []string{"lexical-v1"}}
	if _, err := weaviate.OpenCollection(ctx, c.URL(0, "Stemmed"), later); err != nil {
		t.Errorf("open with a compatible later analyzer: %v", err)
	}
}

func testRoundTrip(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	b := mustOpen(t, c, 0, "RoundTrip", nil)
	f := testDoc("doc1", "/lib/cats.pdf", 0, "Cats sleep most of the day. ", "Dogs fetch sticks. ", "Birds sing at dawn.")
	d, chunks := f.d, f.chunks
	original := []byte("%PDF-1.7 not really\x00\xff")
	res := put(t, b, f, original)
	if got, want := len(res.Added), 3; got != want {
		t.Fatalf("added %d passages, want %d", got, want)
	}
	got, err := b.Document(ctx, "doc1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, got); diff != "" {
		t.Errorf("Document (-put +got):\n%s", diff)
	}
	if got.PageText(2, 2) != "Dogs fetch sticks. " {
		t.Errorf("page 2 = %q", got.PageText(2, 2))
	}
	if info, err := b.DocumentInfo(ctx, "doc1"); err != nil || info.Text != "" || info.Title != d.Title {
		t.Errorf("DocumentInfo = %+v, %v; want metadata without text", info, err)
	}
	if o, err := b.Original(ctx, "doc1"); err != nil || string(o) != string(original) {
		t.Errorf("Original = %q, %v", o, err)
	}
	p, err := b.Passage(ctx, "doc1:1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&chunks[1], p); diff != "" {
		t.Errorf("Passage (-put +got):\n%s", diff)
	}
	if cs, err := b.Chunks(ctx, []uint64{d.Chunks[2], 12345, d.Chunks[0]}); err != nil || len(cs) != 2 || cs[0].Index != 2 || cs[1].Index != 0 {
		t.Errorf("Chunks = %v, %v; want passages 2 and 0", cs, err)
	}
	docs, err := b.Documents(ctx)
	if err != nil || len(docs) != 1 || docs[0].ID != "doc1" {
		t.Errorf("Documents = %v, %v", docs, err)
	}
	st, err := b.Stats(ctx)
	if want := (store.Stats{Documents: 1, Chunks: 3, Vectors: 3, Pages: 3, FileBytes: 1234}); err != nil || st != want {
		t.Errorf("Stats = %+v, %v; want %+v", st, err, want)
	}
	if err := b.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
	removed, err := b.DeleteDocument(ctx, "doc1")
	if err != nil || len(removed) != 3 {
		t.Fatalf("DeleteDocument = %v, %v", removed, err)
	}
	for _, err := range []error{errOf(b.Document(ctx, "doc1")), errOf(b.Passage(ctx, "doc1:0")), errOf(b.Original(ctx, "doc1")), errOf(b.DeleteDocument(ctx, "doc1"))} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after delete: %v, want store.ErrNotFound", err)
		}
	}
	if st, err := b.Stats(ctx); err != nil || st != (store.Stats{}) {
		t.Errorf("Stats after delete = %+v, %v", st, err)
	}
}

func errOf[T any](_ T, err error) error { return err }

func testSearch(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	b := mustOpen(t, c, 0, "Search", nil)
	put(t, b, testDoc("a", "/lib/a.pdf", 0, "Granite forms from slowly cooling magma.", "Tectonic plates drift apart.", "A volcano eruption sends ash into the sky."), nil)
	put(t, b, testDoc("b", "/lib/b.pdf", 3, "A purring kitten naps on the sofa.", "Old cats sleep in the sun."), nil)
	if docs, err := b.Documents(ctx); err != nil || len(docs) != 2 || docs[0].ID != "a" || docs[1].ID != "b" {
		t.Errorf("Documents = %v, %v; want a, b in id order", docs, err)
	}
	lex, err := b.Lexical(ctx, "purring kitten", 3)
	if err != nil || len(lex) == 0 || lex[0].Chunk.ID() != "b:0" || lex[0].Score <= 0 || lex[0].Title != "Title of b" {
		t.Errorf("Lexical = %v (%+v), %v; want b:0 first with a positive score", ids(lex), lex, err)
	}
	near, err := b.Nearest(ctx, axis(4), 2)
	if err != nil || len(near) != 2 || near[0].Chunk.ID() != "b:1" || math.Abs(near[0].Score-1) > 1e-4 {
		t.Errorf("Nearest = %v (%+v), %v; want b:1 first with similarity 1", ids(near), near, err)
	}
	for _, fusion := range []string{weaviate.FusionRanked, weaviate.FusionRelative} {
		hy, err := b.Hybrid(ctx, weaviate.HybridQuery{Text: "volcano eruption", Vector: axis(1), Limit: 5, Alpha: 0.5, Fusion: fusion})
		if err != nil || len(hy) < 2 {
			t.Fatalf("Hybrid %s = %v, %v", fusion, ids(hy), err)
		}
		// a:2 matches the words, a:1 the vector; both lead.
		if top := ids(hy[:2]); !(cmp.Equal(top, []string{"a:2", "a:1"}) || cmp.Equal(top, []string{"a:1", "a:2"})) {
			t.Errorf("Hybrid %s top two = %v, want a:1 and a:2", fusion, top)
		}
	}
	if _, err := b.Lexical(ctx, "  ", 3); !errors.Is(err, weaviate.ErrEmptyQuery) {
		t.Errorf("empty lexical query: %v", err)
	}
	if hits, err := b.Lexical(ctx, `quotes " and \ backslashes } { ) (`, 3); err != nil {
		t.Errorf("query with GraphQL syntax: %v, %v", ids(hits), err)
	}
	testRank(t, b, lex, near)
}

func testRePut(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	b := mustOpen(t, c, 0, "RePut", nil)
	put(t, b, testDoc("v1", "/lib/x.pdf", 0, "alpha one", "beta two", "gamma three"), nil)
	res := put(t, b, testDoc("v1", "/lib/x.pdf", 0, "delta four", "epsilon five"), nil)
	if len(res.Removed) != 3 || len(res.Added) != 2 {
		t.Errorf("re-put result %+v, want 3 removed and 2 added", res)
	}
	if _, err := b.Passage(ctx, "v1:2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("old third passage after re-put: %v, want store.ErrNotFound", err)
	}
	if hits, err := b.Lexical(ctx, "gamma beta", 5); err != nil || len(hits) != 0 {
		t.Errorf("search for replaced text = %v, %v; want nothing", ids(hits), err)
	}
	// The same source path under a new id replaces the old document.
	res = put(t, b, testDoc("v2", "/lib/x.pdf", 0, "zeta six"), nil)
	if !cmp.Equal(res.Replaced, []string{"v1"}) || len(res.Removed) != 2 {
		t.Errorf("put at the same path: %+v, want v1 replaced with its 2 passages", res)
	}
	st, err := b.Stats(ctx)
	if want := (store.Stats{Documents: 1, Chunks: 1, Vectors: 1, Pages: 1, FileBytes: 1234}); err != nil || st != want {
		t.Errorf("Stats = %+v, %v; want %+v", st, err, want)
	}
	// A passage lost behind mcpvec's back is found by Check and repaired by
	// putting the document again.
	body := `{"match":{"class":"RePutPassage","where":{"path":["docId"],"operator":"Equal","valueText":"v2"}}}`
	if resp, err := c.Do(0, http.MethodDelete, "/v1/batch/objects", body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("delete passages behind the backend's back: %v %v", resp, err)
	}
	if err := b.Check(ctx); err == nil || !strings.Contains(err.Error(), "v2 (0 of 1 passages)") {
		t.Errorf("Check after losing a passage = %v", err)
	}
	put(t, b, testDoc("v2", "/lib/x.pdf", 0, "zeta six"), nil)
	if err := b.Check(ctx); err != nil {
		t.Errorf("Check after re-put = %v", err)
	}
}

func testSettings(t *testing.T, c *weaviatetest.Cluster) {
	ctx := context.Background()
	b := mustOpen(t, c, 0, "Settings", nil)
	if _, err := b.Setting(ctx, "link-key"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing setting: %v", err)
	}
	v, err := b.SettingOrCreate(ctx, "link-key", func() ([]byte, error) { return []byte{0, 1, 2, 255}, nil })
	if err != nil || string(v) != "\x00\x01\x02\xff" {
		t.Fatalf("SettingOrCreate = %q, %v", v, err)
	}
	v, err = b.SettingOrCreate(ctx, "link-key", func() ([]byte, error) { return []byte("other"), nil })
	if err != nil || string(v) != "\x00\x01\x02\xff" {
		t.Errorf("second SettingOrCreate = %q, %v; want the first value", v, err)
	}
	if err := b.PutSetting(ctx, "link-key", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Setting(ctx, "link-key"); err != nil || string(v) != "new" {
		t.Errorf("Setting after PutSetting = %q, %v", v, err)
	}
	m, err := b.Meta(ctx)
	if err != nil || m.SchemaVersion != weaviate.SchemaVersion || m.Embedder == nil || *m.Embedder != testEmbedder || m.Created.IsZero() {
		t.Errorf("Meta = %+v, %v", m, err)
	}
	other := testEmbedder
	other.Model = "other"
	if err := b.SetEmbedder(ctx, other); !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Errorf("SetEmbedder(other) = %v, want store.ErrEmbedderMismatch", err)
	}
	f := testDoc("short", "", 0, "x")
	if _, err := b.PutDocument(ctx, f.d, f.chunks, [][]float32{{1, 2}}, nil); !errors.Is(err, store.ErrDimensions) {
		t.Errorf("put with 2-dimensional vectors: %v, want store.ErrDimensions", err)
	}
}

// testOlderSchema: a passage class made by an mcpvec from before heading
// paths (no "headings" property) gets the property on Open, and passages
// then keep their headings.
func testOlderSchema(t *testing.T, c *weaviatetest.Cluster) {
	var props []string
	for _, p := range []string{"text:text", "terms:text", "docId:text", "index:int", "seq:text", "start:int",
		"end:int", "pageStart:int", "pageEnd:int", "title:text"} {
		name, typ, _ := strings.Cut(p, ":")
		props = append(props, fmt.Sprintf(`{"name":%q,"dataType":[%q]}`, name, typ))
	}
	body := `{"class":"OlderPassage","vectorizer":"none","properties":[` + strings.Join(props, ",") + `]}`
	resp, err := c.Do(0, http.MethodPost, "/v1/schema", body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("create an older passage class: %v %v", resp, err)
	}
	resp.Body.Close()
	b := mustOpen(t, c, 0, "Older", nil)
	f := testDoc("o", "/lib/o.pdf", 1, "Tabby cats nap.")
	f.chunks[0].Headings = []string{"Naps"}
	put(t, b, f, nil)
	got, err := b.Passage(context.Background(), "o:0")
	if err != nil || !slices.Equal(got.Headings, f.chunks[0].Headings) {
		t.Errorf("passage of an upgraded class = %+v, %v; want headings %v", got, err, f.chunks[0].Headings)
	}
}

func testErrors(t *testing.T, c *weaviatetest.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A class named like ours but not made by mcpvec.
	body := `{"class":"ForeignPassage","vectorizer":"none","properties":[{"name":"text","dataType":["int"]}]}`
	resp, err := c.Do(0, http.MethodPost, "/v1/schema", body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("create foreign class: %v %v", resp, err)
	}
	resp.Body.Close()
	key := &weaviate.Options{APIKey: c.APIKey()}
	if _, err := weaviate.OpenCollection(ctx, c.URL(0, "Foreign"), key); !errors.Is(err, weaviate.ErrSchema) {
		t.Errorf("open a foreign class: %v, want ErrSchema", err)
	}
	for _, tc := range []struct {
		url  string
		opts *weaviate.Options
		want error
	}{
		{"weaviate://127.0.0.1:1/Lib", key, weaviate.ErrUnreachable},
		{"http://127.0.0.1:1/Lib", key, weaviate.ErrURL},
		{c.URL(0, "bad-name"), key, weaviate.ErrURL},
		{c.URL(0, "Lib"), nil, weaviate.ErrAuth},
		{c.URL(0, "Lib"), &weaviate.Options{APIKey: "wrong"}, weaviate.ErrAuth},
	} {
		if _, err := weaviate.OpenCollection(ctx, tc.url, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("Open(%s) = %v, want %v", tc.url, err, tc.want)
		}
	}
}

// TestOpenRefusals checks version and authentication errors against a fake
// that answers /v1/meta as Weaviate does.
func TestOpenRefusals(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   error
	}{
		{200, `{"hostname":"http://[::]:8080","modules":{},"version":"1.20.3"}`, weaviate.ErrVersion},
		{200, `{"version":"garbage"}`, weaviate.ErrVersion},
		{401, `{"code":401,"message":"anonymous access not enabled"}`, weaviate.ErrAuth},
		{403, `{"error":[{"message":"forbidden"}]}`, weaviate.ErrAuth},
		{503, ``, weaviate.ErrUnreachable},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			fmt.Fprint(w, tc.body)
		}))
		_, err := weaviate.OpenCollection(context.Background(), "weaviate://"+strings.TrimPrefix(srv.URL, "http://")+"/Lib", &weaviate.Options{APIKey: "k"})
		srv.Close()
		if !errors.Is(err, tc.want) {
			t.Errorf("%d %s: Open = %v, want %v", tc.status, tc.body, err, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"weaviate://localhost:8080/library": "http://localhost:8080 Library",
		"weaviates://db.example:443/Papers": "https://db.example:443 Papers",
		"weaviate://h/Team_2/":              "http://h Team_2",
	} {
		base, coll, err := weaviate.ParseURL(raw)
		if got := base + " " + coll; err != nil || got != want {
			t.Errorf("ParseURL(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
}
