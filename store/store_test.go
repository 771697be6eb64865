package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// MustOpenDB opens a fresh library with a 4-dimensional test embedder; on
// cleanup storetest checks the library's invariants.
// openNew opens a new library file in a temporary directory and returns it
// with its path. The test closes it: some close and reopen the file.
func openNew(t *testing.T, opts *store.Options) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lib.db")
	db, err := store.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return db, path
}

func MustOpenDB(tb testing.TB) *store.DB {
	tb.Helper()
	db := storetest.MustOpen(tb, nil)
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4}); err != nil {
		tb.Fatal(err)
	}
	return db
}

func testDoc(id, path string, texts ...string) (*store.Document, []store.Chunk, [][]float32) {
	d := &store.Document{ID: id, Title: id, SourcePath: path, MediaType: "text/plain",
		Text: strings.Join(texts, "\n\n"), Pages: 1, PageStarts: []int{0}}
	var chunks []store.Chunk
	var vecs [][]float32
	off := 0
	for i, t := range texts {
		chunks = append(chunks, store.Chunk{Text: t, Start: off, End: off + len(t), PageStart: 1, PageEnd: 1})
		vecs = append(vecs, []float32{float32(i), 1, 2, 3})
		off += len(t) + 2
	}
	return d, chunks, vecs
}

// mustPut stores testDoc(id, path, texts...) without an original and
// returns the document as stored and the write's result.
func mustPut(tb testing.TB, db *store.DB, id, path string, texts ...string) (*store.Document, store.PutResult) {
	tb.Helper()
	d, c, v := testDoc(id, path, texts...)
	res, err := db.PutDocument(d, c, v, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return d, res
}

func TestPutGetDelete(t *testing.T) {
	db := MustOpenDB(t)
	d, c, v := testDoc("aaaa", "/x/a.txt", "first passage", "second passage")
	res, err := db.PutDocument(d, c, v, []byte("original"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Added), 2; got != want {
		t.Fatalf("added %d, want %d", got, want)
	}
	got, err := db.Document("aaaa")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "first passage\n\nsecond passage" || len(got.Chunks) != 2 {
		t.Fatalf("document = %+v", got)
	}
	p, err := db.Passage("aaaa:1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "second passage" || p.ID() != "aaaa:1" {
		t.Fatalf("passage = %+v", p)
	}
	if _, err := db.Passage("aaaa:2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("out of range passage: %v", err)
	}
	if b, err := db.Original("aaaa"); err != nil || string(b) != "original" {
		t.Fatalf("original = %q, %v", b, err)
	}
	if byPath, err := db.DocumentByPath("/x/a.txt"); err != nil || byPath.ID != "aaaa" {
		t.Fatalf("by path = %v, %v", byPath, err)
	}
	removed, err := db.DeleteDocument("aaaa")
	if err != nil || len(removed) != 2 {
		t.Fatalf("delete = %v, %v", removed, err)
	}
	if _, err := db.Document("aaaa"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := db.DeleteDocument("aaaa"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if s, _ := db.Stats(); s.Documents != 0 || s.Chunks != 0 || s.Vectors != 0 {
		t.Fatalf("stats after delete = %+v", s)
	}
}

func TestChangedFileReplacesOldDocument(t *testing.T) {
	db := MustOpenDB(t)
	_, r1 := mustPut(t, db, "old1", "/x/a.txt", "one", "two", "three")
	_, r2 := mustPut(t, db, "new2", "/x/a.txt", "uno")
	if len(r2.Removed) != 3 || r2.Replaced[0] != "old1" {
		t.Fatalf("replace result = %+v", r2)
	}
	for _, s := range r2.Added {
		for _, old := range r1.Added {
			if s == old {
				t.Fatalf("sequence %d reused", s)
			}
		}
	}
	if _, err := db.Document("old1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old document still there: %v", err)
	}
	if s, _ := db.Stats(); s.Documents != 1 || s.Chunks != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestDimensionsAndEmbedderRefused(t *testing.T) {
	db := MustOpenDB(t)
	d, c, _ := testDoc("bbbb", "/b", "x")
	if _, err := db.PutDocument(d, c, [][]float32{{1, 2}}, nil); !errors.Is(err, store.ErrDimensions) {
		t.Fatalf("short vector: %v", err)
	}
	err := db.SetEmbedder(store.EmbedderInfo{Provider: "openai", Model: "m", Dimensions: 4})
	if !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Fatalf("other embedder: %v", err)
	}
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4}); err != nil {
		t.Fatalf("same embedder: %v", err)
	}
}

func TestSecondWriterGetsLockedErrorQuickly(t *testing.T) {
	db, path := openNew(t, nil)
	defer db.Close()
	start := time.Now()
	_, err := store.Open(path, &store.Options{Timeout: 200 * time.Millisecond})
	var le *store.LockedError
	if !errors.As(err, &le) || !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: %v", err)
	}
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), "in use by PID "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("error = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	db, path := openNew(t, nil)
	db.Close()
	alterFile(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("99")) })
	_, err := store.Open(path, nil)
	if !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "newer mcpvec") {
		t.Fatalf("open newer: %v", err)
	}
}

func TestForeignBoltFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	alterFile(t, path, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("users")); return err })
	if _, err := store.Open(path, nil); !errors.Is(err, store.ErrSchema) {
		t.Fatalf("open foreign: %v", err)
	}
}

func TestAuxBucketAndSettings(t *testing.T) {
	db := MustOpenDB(t)
	err := db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux("hnsw")
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		b, _ := tx.Aux("hnsw")
		if string(b.Get([]byte("k"))) != "v" {
			t.Error("aux value lost")
		}
		missing, _ := tx.Aux("nope")
		if missing.Get([]byte("k")) != nil || missing.Put([]byte("a"), nil) == nil {
			t.Error("absent aux bucket in read tx should read empty and refuse writes")
		}
		return nil
	})
	calls := 0
	mk := func() ([]byte, error) { calls++; return []byte("secret-" + strconv.Itoa(calls)), nil }
	a, err := db.SettingOrCreate("linkkey", mk)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := db.SettingOrCreate("linkkey", mk)
	if string(a) != string(b) || calls != 1 {
		t.Fatalf("setting not stable: %q %q calls=%d", a, b, calls)
	}
}

func TestDefaultPath(t *testing.T) {
	if p, _ := store.DefaultPath("/tmp/xdg"); p != "/tmp/xdg/mcpvec/library.db" {
		t.Fatalf("xdg path = %s", p)
	}
	t.Setenv("HOME", "/tmp/home")
	if p, _ := store.DefaultPath(""); p != "/tmp/home/.local/share/mcpvec/library.db" {
		t.Fatalf("home path = %s", p)
	}
}

func TestPageHelpers(t *testing.T) {
	d := &store.Document{Text: "page one\fpage two\fpage three", PageStarts: []int{0, 9, 18}}
	if got := d.PageOf(10); got != 2 {
		t.Fatalf("PageOf(10) = %d", got)
	}
	if got := d.PageOf(0); got != 1 {
		t.Fatalf("PageOf(0) = %d", got)
	}
	if got := d.PageText(2, 2); got != "page two\f" {
		t.Fatalf("PageText(2,2) = %q", got)
	}
	if got := d.PageText(3, 9); got != "page three" {
		t.Fatalf("PageText(3,9) = %q", got)
	}
}

func TestCheckFindsOrphans(t *testing.T) {
	db, path := openNew(t, nil)
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	mustPut(t, db, "cccc", "/c", "one", "two")
	if err := db.Check(); err != nil {
		t.Fatalf("healthy library: %v", err)
	}
	db.Close()
	// Damage it behind the store's back: drop one vector.
	alterFile(t, path, func(tx *bolt.Tx) error {
		k, _ := tx.Bucket([]byte("vectors")).Cursor().First()
		return tx.Bucket([]byte("vectors")).Delete(k)
	})
	checkFinds(t, path, "missing or malformed vector")
}

// alterFile changes the closed library file at path behind the store's
// back, in one raw bbolt write transaction.
func alterFile(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// checkFinds opens the library at path and checks that Check reports the
// damage described by want.
func checkFinds(t *testing.T, path, want string) {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("check of the damaged library = %v, want %q", err, want)
	}
}

func TestChunkRecordRoundTripAndCorruption(t *testing.T) {
	db := MustOpenDB(t)
	d, c, v := testDoc("dddd", "/d", "héllo wörld — ünïcode", "")
	if _, err := db.PutDocument(d, c, v, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.Chunks(d.Chunks)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		want := c[i]
		if g.Text != want.Text || g.Start != want.Start || g.End != want.End || g.PageStart != 1 || g.DocID != "dddd" || g.Index != i {
			t.Fatalf("chunk %d = %+v, want %+v", i, g, want)
		}
	}
	db.View(func(tx *store.Tx) error {
		var texts []string
		for _, text := range tx.ChunkTexts() {
			texts = append(texts, text)
		}
		if len(texts) != 2 || texts[0] != "héllo wörld — ünïcode" || texts[1] != "" {
			t.Fatalf("ChunkTexts = %q", texts)
		}
		seqs := slices.Collect(tx.ChunkSeqs())
		if !slices.Equal(seqs, d.Chunks) {
			t.Fatalf("ChunkSeqs = %v, want %v", seqs, d.Chunks)
		}
		if text, err := tx.ChunkText(seqs[0]); err != nil || text != texts[0] {
			t.Fatalf("ChunkText(%d) = %q, %v", seqs[0], text, err)
		}
		if _, err := tx.ChunkText(seqs[1] + 1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("ChunkText of a missing passage: %v", err)
		}
		return nil
	})
}

func TestLockedErrorIgnoresStalePID(t *testing.T) {
	db, path := openNew(t, nil)
	defer db.Close()
	// A PID file left by a writer that died (no such process).
	os.WriteFile(path+".pid", []byte("999999999\n"), 0o600)
	_, err := store.Open(path, &store.Options{Timeout: 100 * time.Millisecond})
	var le *store.LockedError
	if !errors.As(err, &le) || le.PID != 0 || strings.Contains(err.Error(), "999999999") {
		t.Fatalf("stale pid named: %v", err)
	}
}
