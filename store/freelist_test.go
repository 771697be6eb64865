package store_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// freePages gives db's file about n MiB of free pages, as an ingest's
// rewritten BM25 segments do: a value of that size put, then dropped.
func freePages(t *testing.T, db *store.DB, n int) {
	t.Helper()
	if err := db.Update(func(tx *store.Tx) error {
		b, err := tx.Aux("ballast")
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put([]byte(strconv.Itoa(i)), make([]byte, 1<<20)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *store.Tx) error { return tx.DropAux("ballast") }); err != nil {
		t.Fatal(err)
	}
}

// putDocs stores n documents of two short passages each, one commit each.
func putDocs(t *testing.T, db *store.DB, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		mustPut(t, db, fmt.Sprintf("doc%05d", i), fmt.Sprintf("/docs/%05d.txt", i),
			fmt.Sprintf("passage one of document %d", i), fmt.Sprintf("passage two of document %d", i))
	}
}

// wchar is what this process has passed to write calls so far
// (/proc/self/io), and false where that cannot be read.
func wchar(t *testing.T) (int64, bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestDeferFreelistBoundsWrites: a write session of many small commits to
// a file with many free pages writes about what it stores, not a copy of
// bbolt's freelist per commit. 300 documents are stored one commit each
// into a file with 64 MiB free (16,384 pages: a 128 KiB freelist); without
// DeferFreelist every commit also wrote that freelist, ~38 MiB in all,
// against ~15 MiB for the pages the documents changed. The bound is
// checked both on what the store counted (WriteVolume) and on the bytes
// the process passed to write calls (wchar, on Linux).
func TestDeferFreelistBoundsWrites(t *testing.T) {
	db := MustOpenDB(t)
	freePages(t, db, 64)
	before := db.WriteVolume()
	w0, haveW := wchar(t)

	end := db.DeferFreelist()
	const docs = 300
	putDocs(t, db, 0, docs)
	if err := end(); err != nil {
		t.Fatal(err)
	}

	v := db.WriteVolume()
	w1, _ := wchar(t)
	commits := v.Commits - before.Commits
	freelist := v.FreelistBytes - before.FreelistBytes
	total := v.Bytes() - before.Bytes()
	t.Logf("%d commits wrote %d KiB (freelist %d KiB, largest copy %d KiB); wchar %d KiB",
		commits, total>>10, freelist>>10, v.LargestFreelist>>10, (w1-w0)>>10)
	if commits != docs+1 {
		t.Errorf("%d commits, want %d (one a document and the freelist's)", commits, docs+1)
	}
	// One copy of the freelist, written when the session ended.
	if freelist > v.LargestFreelist {
		t.Errorf("the session wrote %d KiB of freelist, more than one copy (%d KiB)", freelist>>10, v.LargestFreelist>>10)
	}
	const perDoc = 96 << 10 // the leaf-to-root pages of a dozen buckets, and a meta page
	if limit := int64(docs * perDoc); total > limit {
		t.Errorf("%d documents wrote %d KiB, more than %d KiB", docs, total>>10, limit>>10)
	}
	if haveW && runtime.GOOS == "linux" {
		if limit := int64(docs*perDoc) + 1<<20; w1-w0 > limit {
			t.Errorf("%d documents made %d KiB of write calls, more than %d KiB", docs, (w1-w0)>>10, limit>>10)
		}
	}
}

// metaFreelist reads the freelist page id of the bbolt file's current meta
// page (the one of the higher transaction id): ^0 when the last commit
// left the freelist unwritten.
func metaFreelist(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := int(binary.LittleEndian.Uint32(b[16+8:])) // page header, magic, version: page size
	var best, txid uint64
	for _, off := range []int{16, page + 16} {
		m := b[off:]
		// magic, version, page size, flags (4 each), root bucket (16), freelist, pgid, txid (8 each)
		if id := binary.LittleEndian.Uint64(m[48:]); id >= txid {
			txid, best = id, binary.LittleEndian.Uint64(m[32:])
		}
	}
	return best
}

// TestDeferFreelistKilled: a file left by a process killed during a write
// session (its freelist unwritten) opens, rebuilt by bbolt, with every
// committed document, passes the check, opens read-only, and is written a
// freelist again by its first writable open; a session that ends, and
// Close, leave the freelist written.
func TestDeferFreelistKilled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lib.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4}); err != nil {
		t.Fatal(err)
	}
	freePages(t, db, 4)
	end := db.DeferFreelist()
	putDocs(t, db, 0, 20)
	if metaFreelist(t, path) != ^uint64(0) {
		t.Fatal("a commit under DeferFreelist wrote the freelist")
	}
	// What a kill leaves: the file as its last commit wrote it.
	killed := filepath.Join(dir, "killed.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(killed, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := end(); err != nil {
		t.Fatal(err)
	}
	if metaFreelist(t, path) == ^uint64(0) {
		t.Error("the session's end left the freelist unwritten")
	}
	end = db.DeferFreelist()
	putDocs(t, db, 20, 2)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if metaFreelist(t, path) == ^uint64(0) {
		t.Error("Close left the freelist unwritten")
	}
	if err := end(); err != nil {
		t.Errorf("a session ended after Close: %v", err)
	}

	ro, err := store.Open(killed, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a killed session's file: %v", err)
	}
	if err := ro.Check(); err != nil {
		t.Errorf("read-only check: %v", err)
	}
	ro.Close()
	if metaFreelist(t, killed) != ^uint64(0) {
		t.Fatal("a read-only open wrote the file")
	}
	rw, err := store.Open(killed, nil)
	if err != nil {
		t.Fatalf("open of a killed session's file: %v", err)
	}
	if err := rw.Check(); err != nil {
		t.Error(err)
	}
	docs, err := rw.Documents()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 20 {
		t.Errorf("%d documents after the kill, want the 20 committed", len(docs))
	}
	putDocs(t, rw, 20, 5) // the freed pages are reused, not doubly allocated
	if err := rw.Check(); err != nil {
		t.Error(err)
	}
	rw.Close()
	if metaFreelist(t, killed) == ^uint64(0) {
		t.Error("the open after the kill left the freelist unwritten")
	}
}
