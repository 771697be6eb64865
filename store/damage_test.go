package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// damagedLibrary writes a library with a few hundred documents (so it spans
// many pages) and returns its path, closed.
func damagedLibrary(t *testing.T) string {
	t.Helper()
	db, path := openNew(t, &store.Options{NoSync: true})
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4}); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		id := fmt.Sprintf("doc%05d", i)
		d, c, v := testDoc(id, "/x/"+id+".txt", strings.Repeat("words of passage one ", 40), "two "+id)
		if _, err := db.PutDocument(d, c, v, []byte(strings.Repeat("o", 3000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readEverything runs every read the CLI's info, ls and check do; it fails
// the test on a panic (by not recovering) and returns the errors it met.
func readEverything(db *store.DB) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	_, err := db.Meta()
	add(err)
	_, err = db.Stats()
	add(err)
	docs, err := db.Documents()
	add(err)
	for _, d := range docs {
		_, err := db.Document(d.ID)
		add(err)
		_, err = db.Chunks(d.Chunks)
		add(err)
		add(db.ViewChunks(d.Chunks, func(int, *store.Chunk) bool { return true }))
		_, err = db.Original(d.ID)
		add(err)
	}
	add(db.Check())
	return errs
}

func TestDamagedFileIsAnErrorNotAPanic(t *testing.T) {
	for _, tc := range storetest.Damages {
		t.Run(tc.Name, func(t *testing.T) {
			path := damagedLibrary(t)
			tc.Apply(t, path)
			for _, ro := range []bool{true, false} {
				db, err := store.Open(path, &store.Options{ReadOnly: ro})
				if err != nil {
					if !errors.Is(err, store.ErrCorrupt) {
						t.Fatalf("open (read-only %v): %v, want ErrCorrupt", ro, err)
					}
					continue
				}
				errs := readEverything(db)
				db.Close()
				if len(errs) == 0 {
					t.Fatalf("read-only %v: every read of a damaged file succeeded", ro)
				}
				for _, err := range errs {
					if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrNotFound) {
						t.Errorf("read-only %v: %v, want ErrCorrupt", ro, err)
					}
				}
			}
		})
	}
}

func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(path, &store.Options{ReadOnly: true}); !errors.Is(err, store.ErrEmpty) {
		t.Fatalf("read-only open of a 0-byte file: %v, want ErrEmpty", err)
	}
	// Opened for writing, an empty file holds nothing to lose: it becomes a
	// new library.
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Meta(); err != nil {
		t.Fatal(err)
	}
}

func TestSalvageCopiesWhatIsReadable(t *testing.T) {
	path := damagedLibrary(t)
	// Overwrite the page holding one document's text: the documents stored
	// on that page are lost, every other one must come through.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("two doc00150"))
	if at < 0 {
		t.Fatal("text of doc00150 not found in the file")
	}
	page := int64(at / 4096 * 4096)
	storetest.Overwrite(t, path, page, 4096)
	dst, rep := salvage(t, path)
	if rep.Copied < 250 || len(rep.Lost) == 0 || rep.Copied+len(rep.Lost) != 300 || !slices.Contains(rep.Lost, "doc00150") {
		t.Fatalf("copied %d, lost %d of 300", rep.Copied, len(rep.Lost))
	}
	if err := dst.Check(); err != nil {
		t.Fatalf("salvaged library fails its check: %v", err)
	}
	docs, err := dst.Documents()
	if err != nil || len(docs) != rep.Copied {
		t.Fatalf("salvaged library holds %d documents (%v), report says %d", len(docs), err, rep.Copied)
	}
	for _, d := range docs {
		got, err := dst.Document(d.ID)
		if err != nil || !strings.Contains(got.Text, "two "+d.ID) {
			t.Fatalf("document %s: %v, text %q", d.ID, err, got.Text)
		}
		if o, err := dst.Original(d.ID); err != nil || len(o) != 3000 {
			t.Fatalf("document %s original: %d bytes, %v", d.ID, len(o), err)
		}
	}
}

func TestSalvageTruncated(t *testing.T) {
	path := damagedLibrary(t)
	storetest.Truncate(t, path, 2.0/3)
	dst, _ := salvage(t, path)
	if err := dst.Check(); err != nil {
		t.Fatalf("salvaged library fails its check: %v", err)
	}
}

// salvage copies path into a new library and returns it with the report.
func salvage(t *testing.T, path string) (*store.DB, store.SalvageReport) {
	t.Helper()
	dst, err := store.Open(filepath.Join(t.TempDir(), "new.db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	rep, err := store.Salvage(path, dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copied %d, lost %d, incomplete %v", rep.Copied, len(rep.Lost), rep.Incomplete)
	return dst, rep
}

// TestOpenUnwrittenFile: a file bbolt created whose first store write never
// committed (a first ingest killed at the start) reads as empty and
// unwritten, not as somebody else's data, and a writable open initialises it.
func TestOpenUnwrittenFile(t *testing.T) {
	path := storetest.Unwritten(t)
	_, err := store.Open(path, &store.Options{ReadOnly: true})
	if !errors.Is(err, store.ErrEmpty) || !errors.Is(err, store.ErrUnwritten) {
		t.Fatalf("read-only open of an unwritten file: %v, want ErrEmpty and ErrUnwritten", err)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatalf("writable open of an unwritten file: %v", err)
	}
	db.Close()
	db, err = store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open after initialisation: %v", err)
	}
	db.Close()
}
