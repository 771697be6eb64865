package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// heldWriter blocks its first Write until release is closed; started is
// closed when that Write begins.
type heldWriter struct {
	buf              bytes.Buffer
	once             sync.Once
	started, release chan struct{}
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started); <-w.release })
	return w.buf.Write(p)
}

// TestBackupKeepsReadsGoingWhileAWriteGrows: while a backup's read
// transaction is open, a write that grows the file past the memory map
// waits outside bbolt, so reads go on (inside bbolt the waiting writer
// would hold every new read back until the backup ended); the write
// completes after the backup, and the copy is the library as it was when
// the backup began.
func TestBackupKeepsReadsGoingWhileAWriteGrows(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true, MapRoom: 1 << 20})
	defer db.Close()
	setEmbedder(t, db)
	d, c, v := testDoc("a", "/a.txt", "the first document")
	if _, err := db.PutDocument(d, c, v, nil); err != nil {
		t.Fatal(err)
	}
	w := &heldWriter{started: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(w.release) }) }
	defer release() // before Close, when the test fails early
	backed := make(chan error, 1)
	go func() { _, err := db.Backup(w); backed <- err }()
	<-w.started
	wrote := make(chan error, 1)
	go func() {
		d, c, v := testDoc("b", "/b.txt", "the second document")
		_, err := db.PutDocument(d, c, v, bytes.Repeat([]byte{7}, 8<<20)) // past the map's 1 MiB of room
		wrote <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the write reach its wait
	within(t, 5*time.Second, "a read while a growing write waits for the backup", func() error {
		_, err := db.Document("a")
		return err
	})
	select {
	case err := <-wrote:
		t.Fatalf("the growing write did not wait for the backup (err %v)", err)
	default:
	}
	release()
	if err := <-backed; err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, w.buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Open(copyPath, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if err := cp.Check(); err != nil {
		t.Fatalf("the copy does not pass check: %v", err)
	}
	if _, err := cp.Document("a"); err != nil {
		t.Errorf("document a is not in the copy: %v", err)
	}
	if _, err := cp.Document("b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("document b, written after the backup began, in the copy: %v", err)
	}
}

// TestBackupInfoAndFullDocument: Backup reports the copied commit's
// totals and size; FullDocument reads a document whole.
func TestBackupInfoAndFullDocument(t *testing.T) {
	db, _ := openNew(t, &store.Options{NoSync: true})
	defer db.Close()
	setEmbedder(t, db)
	d, c, v := testDoc("a", "/a.txt", "one passage", "two passages")
	if _, err := db.PutDocument(d, c, v, []byte("original bytes")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	info, err := db.Backup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Bytes, int64(buf.Len()); got != want || got == 0 {
		t.Errorf("Bytes %d, wrote %d", got, want)
	}
	if got, want := info.Totals.Documents, 1; got != want {
		t.Errorf("documents %d, want %d", got, want)
	}
	doc, chunks, vecs, orig, err := db.FullDocument("a")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != d.Text || len(chunks) != 2 || chunks[1].Text != "two passages" || len(vecs) != 2 || vecs[1][0] != 1 || string(orig) != "original bytes" {
		t.Errorf("FullDocument: %+v %+v %v %q", doc, chunks, vecs, orig)
	}
	if _, _, _, _, err := db.FullDocument("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

func setEmbedder(t *testing.T, db *store.DB) {
	t.Helper()
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4}); err != nil {
		t.Fatal(err)
	}
}
