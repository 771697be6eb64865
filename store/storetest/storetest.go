// Package storetest is the shared test kit for anything that opens a
// library file in tests: MustOpen gives a temporary library whose invariants
// are checked on cleanup, Truncate and Overwrite damage a library file on
// purpose, and FileState tells whether a command wrote to one.
//
// It imports only store and the standard library, so every package's tests
// may use it.
package storetest

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
	"go.etcd.io/bbolt"
)

// MustOpen opens a new library in a temporary directory with the given
// options (nil means defaults; NoSync is always set). On cleanup it fails
// the test if store.DB.Check finds a violated invariant (a passage without a
// vector of the library's dimensions, a document's passages incomplete,
// anything orphaned), then closes the library.
func MustOpen(tb testing.TB, opts *store.Options) *store.DB {
	tb.Helper()
	var o store.Options
	if opts != nil {
		o = *opts
	}
	o.NoSync = true
	db, err := store.Open(filepath.Join(tb.TempDir(), "lib.db"), &o)
	if err != nil {
		tb.Fatalf("open library: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Check(); err != nil {
			tb.Errorf("library invariants: %v", err)
		}
		if err := db.Close(); err != nil {
			tb.Errorf("close library: %v", err)
		}
	})
	return db
}

// OpenCached opens the library file name in the OS temp dir for a
// benchmark, first building it with build when it does not exist: build gets
// a temporary path next to it, renamed into place once build returns, so an
// interrupted build is never reused. The file name should carry every
// parameter of its content. The library is opened with NoSync and closed on
// cleanup; its invariants are not checked (it outlives the test).
func OpenCached(tb testing.TB, name string, build func(path string)) *store.DB {
	tb.Helper()
	path := filepath.Join(os.TempDir(), name)
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		os.Remove(path + ".tmp")
		build(path + ".tmp")
		if err := os.Rename(path+".tmp", path); err != nil {
			tb.Fatal(err)
		}
		tb.Logf("built %s in %v", name, time.Since(start))
	}
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Damages are the two ways a real library was found damaged (issue 15):
// cut to a third of its size, and half its size overwritten from page 4.
var Damages = []struct {
	Name  string
	Apply func(tb testing.TB, path string)
}{
	{"truncated", func(tb testing.TB, path string) { Truncate(tb, path, 1.0/3) }},
	{"overwritten", func(tb testing.TB, path string) { Overwrite(tb, path, 4*4096, int(Size(tb, path)/2)) }},
}

// Unwritten creates a library file in a temporary folder as a first ingest
// killed at the start leaves it: bbolt created the file, the store's first
// commit never happened. It returns the path.
func Unwritten(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "lib.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Size returns the size of the file at path.
func Size(tb testing.TB, path string) int64 {
	tb.Helper()
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}

// Truncate cuts the file at path to frac of its size.
func Truncate(tb testing.TB, path string, frac float64) {
	tb.Helper()
	if err := os.Truncate(path, int64(float64(Size(tb, path))*frac)); err != nil {
		tb.Fatal(err)
	}
}

// Overwrite writes n bytes of 0xff at offset off of the file at path.
func Overwrite(tb testing.TB, path string, off int64, n int) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xff}, n), off); err != nil {
		tb.Fatal(err)
	}
}

// File is what a write to a library file changes: its size, its bytes
// and bbolt's transaction id (every commit advances it).
type File struct {
	Size int64
	Sum  [sha256.Size]byte
	TxID int
}

// FileState reads the File of the library at path, which no process may
// hold open for writing (bbolt's lock would stop it).
func FileState(tb testing.TB, path string) File {
	tb.Helper()
	f := File{TxID: txID(tb, path)}
	if b, err := os.ReadFile(path); err == nil {
		f.Size, f.Sum = int64(len(b)), sha256.Sum256(b)
	} else {
		tb.Fatal(err)
	}
	return f
}

// txID reads the id of the last transaction committed to the bbolt file
// at path.
func txID(tb testing.TB, path string) (id int) {
	tb.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error { id = tx.ID(); return nil })
	return id
}
