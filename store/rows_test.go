package store_test

import (
	"cmp"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// titleOrder is the listing's title order worked out from the documents
// themselves: case folded, ties by id, desc reversing both.
func titleOrder(t *testing.T, db *store.DB, desc bool) []string {
	t.Helper()
	docs, err := db.Documents()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(docs, func(a, b *store.Document) int {
		c := cmp.Or(cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)), cmp.Compare(a.ID, b.ID))
		if desc {
			return -c
		}
		return c
	})
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	return ids
}

// wantPages checks TitlePage, page by page of size n, both ways, against
// the documents, and Check.
func wantPages(t *testing.T, db *store.DB, n int) {
	t.Helper()
	for _, desc := range []bool{false, true} {
		want := titleOrder(t, db, desc)
		var got []string
		for from := 0; from < len(want)+n; from += n {
			p, ok, err := db.TitlePage(from, n, desc)
			if err != nil || !ok {
				t.Fatalf("TitlePage(%d, %d, %v): ok %v, %v", from, n, desc, ok, err)
			}
			if p.Documents != len(want) {
				t.Errorf("page says %d documents, want %d", p.Documents, len(want))
			}
			for _, r := range p.Rows {
				got = append(got, r.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("desc %v: pages list %v, want %v", desc, got, want)
		}
	}
	all, ok, err := db.AllRows()
	if err != nil || !ok {
		t.Fatalf("AllRows: ok %v, %v", ok, err)
	}
	docs, _ := db.Documents()
	if len(all.Rows) != len(docs) {
		t.Fatalf("AllRows lists %d rows, want %d", len(all.Rows), len(docs))
	}
	for i, d := range docs {
		if got, want := all.Rows[i], store.RowOf(d); got.ID != want.ID || got.Title != want.Title || got.Passages != want.Passages || got.SourcePath != want.SourcePath {
			t.Errorf("row %d %+v, want %+v", i, got, want)
		}
	}
	if err := db.Check(); err != nil {
		t.Error(err)
	}
}

// TestTitlePageFollowsWrites: the rows and title keys follow puts,
// replacements, removals and moves (whose file-name title changes).
func TestTitlePageFollowsWrites(t *testing.T) {
	db := MustOpenDB(t)
	for _, id := range []string{"b", "A", "c", "a2", "B2"} {
		mustPut(t, db, id, "/"+id+".txt", "one "+id, "two")
	}
	wantPages(t, db, 2)
	mustPut(t, db, "z", "/a2.txt", "replaces a2 by path")
	if _, err := db.DeleteDocument("c"); err != nil {
		t.Fatal(err)
	}
	d, c, v := testDoc("b", "/b.txt", "b again", "and more", "three")
	d.Title, d.MediaType, d.Size = "b.txt", "application/pdf", 42
	if _, err := db.PutDocument(d, c, v, nil); err != nil {
		t.Fatal(err)
	}
	before, _, _ := db.RowsVersion()
	if _, err := db.MoveDocument("b", "/moved/0 first.txt", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if after, ok, err := db.RowsVersion(); after == before || !ok || err != nil {
		t.Errorf("rows version %d before a move, %d after (ok %v, %v); want it changed", before, after, ok, err)
	}
	wantPages(t, db, 2)
	p, _, err := db.TitlePage(0, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Rows[0]; got.ID != "b" || got.Title != "0 first.txt" || got.Passages != 3 || got.Size != 42 || got.SourcePath != "/moved/0 first.txt" {
		t.Errorf("first row %+v, want the moved b", got)
	}
	if got, want := p.Types, []string{"application/pdf", "text/plain"}; !slices.Equal(got, want) {
		t.Errorf("types %v, want %v", got, want)
	}
	if got, want := p.Bytes, int64(42); got != want {
		t.Errorf("bytes %d, want %d", got, want)
	}
}

// TestSchema3FileGetsRows: a library written by mcpvec before the rows
// existed (testdata/schema3.db, written by session 21's store: five
// documents, one removed) has none read-only, gets them at its first
// writable open, and they then follow writes.
func TestSchema3FileGetsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	copyFile(t, "testdata/schema3.db", path)
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ro.TitlePage(0, 10, false); ok || err != nil {
		t.Errorf("read-only schema-3 TitlePage: ok %v, %v; want not ok", ok, err)
	}
	ro.Close()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m, _ := db.Meta(); m.SchemaVersion != store.SchemaVersion {
		t.Errorf("schema after upgrade = %d", m.SchemaVersion)
	}
	p, _, err := db.TitlePage(0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, r := range p.Rows {
		titles = append(titles, r.Title)
	}
	if got, want := strings.Join(titles, "|"), "apple pie|apple pie|banana split|Zebra notes"; got != want {
		t.Errorf("titles %q, want %q", got, want)
	}
	if got, want := p.Bytes, int64(100+200+400+500); got != want || p.Passages != 1+2+4+5 || p.Pages != 12 {
		t.Errorf("bytes %d passages %d pages %d, want %d, 12, 12", got, p.Passages, p.Pages, want)
	}
	if got := p.Rows[0]; got.ID != "doc1" || got.MediaType != "application/pdf" || got.Pages != 2 ||
		!got.IngestedAt.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("first row %+v", got)
	}
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	mustPut(t, db, "new", "/new.txt", "a new one")
	wantPages(t, db, 3)
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
