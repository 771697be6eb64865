package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// checkLibrary ingests n small text files into a new library and returns
// the library's path and the folder of files.
func checkLibrary(t *testing.T, n int) (db, files string) {
	t.Helper()
	db, files = libAndFolder(t, "files")
	for i := range n {
		text := strings.Repeat(fmt.Sprintf("Harbour %d keeps lanterns and ropes number %d. ", i, i*7), 60)
		os.WriteFile(filepath.Join(files, fmt.Sprintf("doc%03d.txt", i)), []byte(text), 0o644)
	}
	mustRun(t, db, "ingest", files)
	return db, files
}

// TestCheckCleanLibrary: check passes a clean library and --repair rebuilds
// its indexes. Both open the vector index as the library's commands do (a
// Scan index for the offline embedder): check builds no graph (which would
// reconcile every vector into one), and the rebuilt index needs no upgrade
// at the next open.
func TestCheckCleanLibrary(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 5)
	debug := []string{"MCPVEC_LOG=debug"}
	r := mcpvecEnv(t, db, debug, "check")
	if r.code != 0 || !strings.Contains(r.stdout, ": ok") {
		t.Fatalf("check of a clean library: %+v", r)
	}
	if strings.Contains(r.stderr, "reconciled") || strings.Contains(r.stderr, "codes read from the stored vectors") {
		t.Errorf("check rebuilt the vector index instead of reading it as saved:\n%s", r.stderr)
	}
	r = mcpvec(t, db, "check", "--repair")
	if r.code != 0 || !strings.Contains(r.stdout, "rebuilt the vector and lexical indexes") {
		t.Fatalf("check --repair of a clean library: %+v", r)
	}
	r = mcpvecEnv(t, db, debug, "search", "--json", "--mode", "vector", "harbour lanterns")
	if r.code != 0 || !strings.Contains(r.stdout, "Harbour") {
		t.Fatalf("vector search after rebuilding the indexes: %+v", r)
	}
	if strings.Contains(r.stderr, "upgraded\"=true") || strings.Contains(r.stderr, "reconciled") {
		t.Errorf("the index check --repair saved was not the library's own kind:\n%s", r.stderr)
	}
	if out := mustRun(t, db, "search", "--json", "harbour lanterns"); !strings.Contains(out, "Harbour") {
		t.Fatalf("search after rebuilding the indexes: %s", out)
	}
}

// TestDamagedLibraryEveryCommand is issue 15 finding 4 through the real
// binary: every command on a damaged copy of a real library fails with one
// line pointing to `mcpvec check --repair`, never a stack trace. `fetch x`
// (an id that never existed) reads only the pages on x's path through the
// documents' tree, and where the ingest's pages fall differs run to run:
// when the overwritten half misses that path it says, truly, that there is
// no such id (3 runs in 36 failed on that before this allowance, on main
// before session 28 as after).
func TestDamagedLibraryEveryCommand(t *testing.T) {
	t.Parallel()
	db, files := checkLibrary(t, 60)
	onDamagedCopies(t, db, func(t *testing.T, bad string) {
		cmds := [][]string{{"info"}, {"ls"}, {"search", "harbour"}, {"fetch", "x"}, {"rm", "x"},
			{"ingest", files}, {"reindex", "--embedder", "hash"}, {"serve", "--addr", "127.0.0.1:0"}, {"check"}}
		for _, args := range cmds {
			r := runChild(t, bad, nil, 20*time.Second, args...)
			if r.code == 0 || strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
				continue
			}
			oneLine := strings.Count(strings.TrimSpace(r.stderr), "\n") == 0
			if args[0] == "fetch" && oneLine && strings.Contains(r.stderr, `no document or passage with that id: "x"`) {
				continue // x's path through the file was intact: true, x never existed (see above)
			}
			if args[0] != "check" && (!strings.Contains(r.stderr, "check --repair") || !oneLine) {
				t.Errorf("%v: want one line pointing to check --repair, got:\n%s", args, r.stderr)
			}
		}
	})
}

// onDamagedCopies runs fn in a subtest for each of storetest.Damages, on a
// copy of the library file db damaged that way.
func onDamagedCopies(t *testing.T, db string, fn func(t *testing.T, bad string)) {
	for _, tc := range storetest.Damages {
		t.Run(tc.Name, func(t *testing.T) {
			bad := copyFile(t, db)
			tc.Apply(t, bad)
			fn(t, bad)
		})
	}
}

// TestCheckRepairDamaged copies what is readable into a new library, leaves
// the damaged file untouched and, with --replace, switches the files.
func TestCheckRepairDamaged(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 60)
	onDamagedCopies(t, db, func(t *testing.T, bad string) {
		before, _ := os.ReadFile(bad)
		if r := mcpvec(t, bad, "check"); r.code != 1 || !strings.Contains(r.stdout, "damaged") {
			t.Fatalf("check of a damaged library: %+v", r)
		}
		r := mcpvec(t, bad, "check", "--repair")
		if r.code != 0 || !strings.Contains(r.stdout, "copied ") || !strings.Contains(r.stdout, "--replace") {
			t.Fatalf("check --repair: %+v", r)
		}
		if after, _ := os.ReadFile(bad); !bytes.Equal(before, after) {
			t.Fatal("check --repair wrote to the damaged file")
		}
		repaired, _ := filepath.Glob(strings.TrimSuffix(bad, ".db") + ".repaired-*.db")
		if len(repaired) != 1 {
			t.Fatalf("repaired files: %v", repaired)
		}
		if r := mcpvec(t, repaired[0], "check"); r.code != 0 {
			t.Fatalf("check of the repaired library: %+v", r)
		}
		os.Remove(repaired[0])
		if r := mcpvec(t, bad, "check", "--repair", "--replace"); r.code != 0 || !strings.Contains(r.stdout, "damaged file is at") {
			t.Fatalf("check --repair --replace: %+v", r)
		}
		if r := mcpvec(t, bad, "check"); r.code != 0 {
			t.Fatalf("check after --replace: %+v", r)
		}
		aside, _ := filepath.Glob(strings.TrimSuffix(bad, ".db") + ".damaged-*.db")
		if len(aside) != 1 {
			t.Fatalf("damaged file moved aside: %v", aside)
		}
	})
}

// TestEmptyLibraryFile is the 0-byte half of finding 4: a clear line, not
// "bad file descriptor".
func TestEmptyLibraryFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lib.db")
	os.WriteFile(db, nil, 0o644)
	for _, args := range [][]string{{"info"}, {"ls"}, {"check"}} {
		r := mcpvec(t, db, args...)
		if r.code == 0 || strings.Contains(r.stderr, "bad file descriptor") || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%v on a 0-byte library: %+v", args, r)
		}
	}
}

// TestUnwrittenLibraryFile: a first ingest killed after bbolt created the
// file but before the store's first commit leaves nothing lost, so check
// passes and says so, and the other commands say the library is empty.
func TestUnwrittenLibraryFile(t *testing.T) {
	db := storetest.Unwritten(t)
	if r := mcpvec(t, db, "check"); r.code != 0 || !strings.Contains(r.stdout, "ok (empty") {
		t.Errorf("check on an unwritten library: %+v", r)
	}
	for _, args := range [][]string{{"info"}, {"ls"}} {
		if r := mcpvec(t, db, args...); r.code == 0 || !strings.Contains(r.stderr, "nothing written yet") || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%v on an unwritten library: %+v", args, r)
		}
	}
}

func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "lib.db")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCheckForwardedToServer: with a server holding the library, check
// runs inside it (read-only) and --repair is refused.
func TestCheckForwardedToServer(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 3)
	serveProc(t, db, nil)
	r := mcpvec(t, db, "check")
	if r.code != 0 || !strings.Contains(r.stderr, "handing the command") || !strings.Contains(r.stdout, ": ok") {
		t.Fatalf("forwarded check: %+v", r)
	}
	if r := mcpvec(t, db, "check", "--repair"); r.code == 0 || !strings.Contains(r.stderr, "stop it") {
		t.Fatalf("check --repair while served: %+v", r)
	}
}

// TestCheckReportsUnusableLexicalSegment: a library whose saved BM25
// segment is unusable (its chunks cut short here; a library written by an
// ingest whose renewed pin let bbolt reuse a chunk's pages read as one
// whose packed terms fail their count, session 25) is searchable, the
// index rebuilt for the command, but `mcpvec check` reports it until
// `check --repair` saves a sound one.
func TestCheckReportsUnusableLexicalSegment(t *testing.T) {
	t.Parallel()
	db, files := libAndFolder(t, "files")
	var text strings.Builder
	for i := range 40000 { // over the 1,024 passages from which a segment is saved
		fmt.Fprintf(&text, "Harbour %d keeps lantern l%dx and rope r%dy. ", i, i, i%37)
	}
	writeFile(t, filepath.Join(files, "harbour.txt"), text.String())
	mustRun(t, db, "ingest", files)
	s, err := store.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := embeddedtest.CutLexicalSegment(t, s)
	if err := s.Close(); err != nil || cut == 0 {
		t.Fatalf("cutting the segment short: %v, %d chunks", err, cut)
	}
	if out := mustRun(t, db, "search", "lantern l4321x"); !strings.Contains(out, "Harbour 4321") {
		t.Fatalf("search of the library with an unusable segment: %s", out)
	}
	if r := mcpvec(t, db, "check"); r.code != 1 || !strings.Contains(r.stdout, "BM25 index unusable as saved") || !strings.Contains(r.stdout, "--repair") {
		t.Fatalf("check of a library with an unusable BM25 segment: %+v", r)
	}
	if r := mcpvec(t, db, "check", "--repair"); r.code != 0 {
		t.Fatalf("check --repair: %+v", r)
	}
	if r := mcpvec(t, db, "check"); r.code != 0 || !strings.Contains(r.stdout, ": ok") {
		t.Fatalf("check after --repair: %+v", r)
	}
}
