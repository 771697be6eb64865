package store_test

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// wantTotals checks the totals record.
func wantTotals(t *testing.T, db *store.DB, gen uint64, docs, passages, pages int) {
	t.Helper()
	got, ok, err := db.Totals()
	want := store.Totals{Generation: gen, Documents: docs, Passages: passages, Pages: pages}
	if err != nil || !ok || got != want {
		t.Errorf("totals = %+v, %v, %v; want %+v", got, ok, err, want)
	}
}

// TestTotalsFollowEveryWrite: every write keeps the totals exact (storetest
// checks them against the documents on cleanup too) and numbers itself
// with the next generation; a move that displaces nothing changes no
// passage and keeps the generation.
func TestTotalsFollowEveryWrite(t *testing.T) {
	db := MustOpenDB(t)
	wantTotals(t, db, 1, 0, 0, 0)
	d, c, v := testDoc("a", "/a", "one", "two")
	d.Pages = 3
	res, err := db.PutDocument(d, c, v, nil)
	if err != nil || res.Generation != 2 {
		t.Fatalf("put: generation %d, %v", res.Generation, err)
	}
	wantTotals(t, db, 2, 1, 2, 3)
	d, c, v = testDoc("b", "/b", "three")
	if res, _ = db.PutDocument(d, c, v, nil); res.Generation != 3 {
		t.Errorf("second put: generation %d", res.Generation)
	}
	d, c, v = testDoc("a", "/a", "one again") // replaces a: one generation
	if res, _ = db.PutDocument(d, c, v, nil); res.Generation != 4 || len(res.Removed) != 2 {
		t.Errorf("replacing put: %+v", res)
	}
	wantTotals(t, db, 4, 2, 2, 2)
	if res, err = db.MoveDocument("b", "/b2", "", time.Now()); err != nil || res.Generation != 0 {
		t.Errorf("move: %+v, %v", res, err)
	}
	if res, err = db.MoveDocument("b", "/a", "", time.Now()); err != nil || res.Generation != 5 || len(res.Removed) != 1 {
		t.Errorf("move over a: %+v, %v", res, err)
	}
	wantTotals(t, db, 5, 1, 1, 1)
	err = db.Update(func(tx *store.Tx) error { // two vectors, one generation
		for _, seq := range []uint64{3} {
			for range 2 {
				if err := tx.PutVector(seq, []float32{9, 9, 9, 9}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantTotals(t, db, 6, 1, 1, 1)
	if res, err = db.RemoveDocument("b"); err != nil || res.Generation != 7 || len(res.Removed) != 1 {
		t.Errorf("remove: %+v, %v", res, err)
	}
	wantTotals(t, db, 7, 0, 0, 0)
	err = db.View(func(tx *store.Tx) error {
		if gen, ok := tx.Generation(); gen != 7 || !ok {
			t.Errorf("Tx.Generation = %d, %v", gen, ok)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSchema2UpgradeFillsTotals: a library written before the totals
// existed has none when opened read-only and gets exact ones, and schema
// 3, from the first writable open.
func TestSchema2UpgradeFillsTotals(t *testing.T) {
	db, path := openNew(t, nil)
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	for i, texts := range [][]string{{"one", "two"}, {"three"}, {"four", "five", "six"}} {
		d, c, v := testDoc(strconv.Itoa(i), "/"+strconv.Itoa(i), texts...)
		d.Pages = i + 1
		if _, err := db.PutDocument(d, c, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		m := tx.Bucket([]byte("meta"))
		if err := m.Delete([]byte("totals")); err != nil {
			return err
		}
		return m.Put([]byte("schema"), []byte("2"))
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ro.Totals(); ok || err != nil {
		t.Errorf("read-only schema-2 totals: ok %v, %v", ok, err)
	}
	if _, ok, err := ro.Counts(); ok || err != nil {
		t.Errorf("read-only schema-2 counts: ok %v, %v; want not ok (Stats counts it)", ok, err)
	}
	ro.Close()
	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m, _ := db.Meta(); m.SchemaVersion != store.SchemaVersion {
		t.Errorf("schema after upgrade = %d", m.SchemaVersion)
	}
	wantTotals(t, db, 1, 3, 6, 6)
	if err := db.Check(); err != nil {
		t.Error(err)
	}
	wantCountsAsStats(t, db)
}

// wantCountsAsStats checks that Counts, read from the totals record and
// the vector checksums, says what Stats counts record by record.
func wantCountsAsStats(t *testing.T, db *store.DB) {
	t.Helper()
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	c, ok, err := db.Counts()
	if err != nil || !ok || c != st {
		t.Errorf("counts %+v, %v, %v; stats %+v", c, ok, err, st)
	}
}

// TestCountsFollowWrites: Counts agrees with Stats after adds, a
// replacement, a removal, a vector replaced and an emptied library.
func TestCountsFollowWrites(t *testing.T) {
	db := MustOpenDB(t)
	wantCountsAsStats(t, db)
	for i, texts := range [][]string{{"one", "two"}, {"three"}, {"four", "five", "six"}} {
		d, c, v := testDoc(strconv.Itoa(i), "/"+strconv.Itoa(i), texts...)
		d.Pages = 2 * (i + 1)
		if _, err := db.PutDocument(d, c, v, nil); err != nil {
			t.Fatal(err)
		}
		wantCountsAsStats(t, db)
	}
	mustPut(t, db, "0", "/0", "one again")
	wantCountsAsStats(t, db)
	if _, err := db.DeleteDocument("1"); err != nil {
		t.Fatal(err)
	}
	wantCountsAsStats(t, db)
	if c, _, _ := db.Counts(); c.Documents != 2 || c.Chunks != 4 || c.Vectors != 4 || c.Pages != 7 || c.FileBytes == 0 {
		t.Errorf("counts %+v, want 2 documents, 4 passages and vectors, 7 pages", c)
	}
	for _, id := range []string{"0", "2"} {
		if _, err := db.DeleteDocument(id); err != nil {
			t.Fatal(err)
		}
	}
	wantCountsAsStats(t, db)
}

// TestReleaseMapped: reading a library maps its pages into the process;
// ReleaseMapped unmaps them (RssFile falls by about the bytes read) and
// later reads still see the same data.
func TestReleaseMapped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ReleaseMapped does nothing here")
	}
	db := MustOpenDB(t)
	const n, size = 16, 1 << 20
	for i := range n {
		d, c, v := testDoc(strconv.Itoa(i), "/"+strconv.Itoa(i), "text")
		if _, err := db.PutDocument(d, c, v, bytes.Repeat([]byte{byte(i + 1)}, size)); err != nil {
			t.Fatal(err)
		}
	}
	readAll := func() {
		for i := range n {
			b, err := db.Original(strconv.Itoa(i))
			if err != nil || len(b) != size || b[size/2] != byte(i+1) {
				t.Fatalf("original %d: %d bytes, %v", i, len(b), err)
			}
		}
	}
	readAll()
	before := storetest.RssFileKB(t)
	if err := db.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	after := storetest.RssFileKB(t)
	if before-after < n*size/1024/2 {
		t.Errorf("RssFile %d kB -> %d kB after reading %d MiB and releasing", before, after, n*size>>20)
	}
	readAll()
}
