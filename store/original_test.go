package store_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

func putOriginal(tb testing.TB, db *store.DB, id string, orig []byte) {
	tb.Helper()
	d, c, v := testDoc(id, "/x/"+id, "a passage of "+id)
	if _, err := db.PutDocument(d, c, v, orig); err != nil {
		tb.Fatal(err)
	}
}

func TestOriginalReader(t *testing.T) {
	db := MustOpenDB(t)
	orig := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640 000 bytes: three pieces
	putOriginal(t, db, "big", orig)
	r, size, _, err := db.OriginalReader("big")
	if err != nil {
		t.Fatal(err)
	}
	if size != int64(len(orig)) {
		t.Fatalf("size %d, want %d", size, len(orig))
	}
	if err := iotest.TestReader(r, orig); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Seek(600000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	if n, err := r.Read(buf); n != 40000 || err != nil || !bytes.Equal(buf[:n], orig[600000:]) {
		t.Fatalf("read after seek: %d, %v", n, err)
	}
	if _, _, _, err := db.OriginalReader("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown document: %v, want ErrNotFound", err)
	}
}

func TestOriginalReaderSeesRemoval(t *testing.T) {
	db := MustOpenDB(t)
	putOriginal(t, db, "gone", []byte("soon removed"))
	r, _, _, err := db.OriginalReader("gone")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteDocument("gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]byte, 4)); !errors.Is(err, store.ErrOriginalChanged) {
		t.Fatalf("read after rm: %v, want ErrOriginalChanged", err)
	}
}

// TestOriginalReaderLetsWritersRemap pauses a reader mid-file while a writer
// grows the file well past its mapping: a reader holding its transaction
// would block the remap (and this test) forever.
func TestOriginalReaderLetsWritersRemap(t *testing.T) {
	db := MustOpenDB(t)
	putOriginal(t, db, "a", bytes.Repeat([]byte("x"), 1<<20))
	r, _, _, err := db.OriginalReader("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	d, c, v := testDoc("b", "/x/b", "a passage of b")
	go func() {
		_, err := db.PutDocument(d, c, v, bytes.Repeat([]byte("y"), 64<<20))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a write that remaps the file waited for a paused reader")
	}
}
