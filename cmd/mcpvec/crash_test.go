package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestKillDuringIngest kills `mcpvec ingest` with SIGKILL at random moments,
// repeatedly. After every kill the library must open, pass its consistency
// check, hold no partial document, and still hold every document that was
// there before; a final run completes the ingest.
func TestKillDuringIngest(t *testing.T) {
	t.Parallel()
	db, files := libAndFolder(t, "files")
	rng := rand.New(rand.NewSource(7))
	const nFiles = 150
	for i := range nFiles {
		var b strings.Builder
		for p := range 40 {
			fmt.Fprintf(&b, "Document %d paragraph %d talks about topic %d and word%d. ", i, p, rng.Intn(50), rng.Intn(1000))
			if p%5 == 4 {
				b.WriteString("\n\n")
			}
		}
		os.WriteFile(filepath.Join(files, fmt.Sprintf("doc%03d.txt", i)), []byte(b.String()), 0o644)
	}
	have := map[string]bool{}
	for round := range 6 {
		// Kill in the middle of the run: after a random number of newly
		// ingested files, plus a random few milliseconds.
		killAfter(t, db, rng, 1+rng.Intn(15), 30, func(l string) bool { return strings.HasPrefix(l, "ingested ") },
			"ingest", "-v", "--workers", "1", files)

		r := mcpvec(t, db, "info", "--json")
		var info infoJSON
		if err := json.Unmarshal([]byte(r.stdout), &info); err != nil {
			if strings.Contains(r.stderr, "no library") {
				continue // killed before the file was created
			}
			t.Fatalf("round %d: info: %v\n%s\n%s", round, err, r.stdout, r.stderr)
		}
		if !info.Consistent || info.Passages != info.Vectors {
			t.Fatalf("round %d: inconsistent library after kill: %+v", round, info)
		}
		if r := mcpvec(t, db, "check"); r.code != 0 || !strings.Contains(r.stdout, ": ok") {
			t.Fatalf("round %d: check after kill: exit %d\n%s\n%s", round, r.code, r.stdout, r.stderr)
		}
		now := map[string]bool{}
		for _, src := range lsSources(t, db) {
			now[src] = true
		}
		for s := range have {
			if !now[s] {
				t.Fatalf("round %d: %s was committed before the kill and is gone", round, s)
			}
		}
		have = now
		t.Logf("round %d: %d documents, %d passages after the kill", round, info.Documents, info.Passages)
	}
	out := mustRun(t, db, "ingest", files)
	if !strings.Contains(out, "0 failed") {
		t.Fatalf("final ingest: %s", out)
	}
	if n := len(lsSources(t, db)); n != nFiles {
		t.Fatalf("after the final run %d documents, want %d", n, nFiles)
	}
	if out := mustRun(t, db, "search", "--json", "-k", "1", "Document 42 paragraph 7"); !strings.Contains(out, "doc042.txt") {
		t.Fatalf("search after recovery: %s", out)
	}
}

// TestKillDuringSync kills `mcpvec sync` with SIGKILL in the middle of
// adds, then of moves, removals and adds: after every kill the library is
// consistent, and a final sync makes it match the folder exactly.
func TestKillDuringSync(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(filepath.Join(docs, "moved"), 0o755)
	const n = 120
	for i := range n {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("d%03d.txt", i)), strings.Repeat(fmt.Sprintf("Document %d speaks of river %d. ", i, i*7), 30))
	}
	rng := rand.New(rand.NewSource(11))
	killSyncs(t, db, docs, rng, 3, 20)
	mustRun(t, db, "sync", docs)
	for i := range n {
		p := filepath.Join(docs, fmt.Sprintf("d%03d.txt", i))
		switch i % 3 {
		case 0:
			os.Rename(p, filepath.Join(docs, "moved", filepath.Base(p)))
		case 1:
			os.Remove(p)
		}
		if i%4 == 0 {
			writeFile(t, filepath.Join(docs, fmt.Sprintf("new%03d.txt", i)), fmt.Sprintf("A new note %d on canal %d.", i, i))
		}
	}
	killSyncs(t, db, docs, rng, 4, 35)
	out := mustRun(t, db, "sync", docs)
	if !strings.Contains(out, "0 failed") {
		t.Fatalf("final sync: %s", out)
	}
	var want []string
	filepath.WalkDir(docs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			want = append(want, p)
		}
		return nil
	})
	sort.Strings(want)
	if got := lsSources(t, db); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the final sync the library holds %d documents, the folder %d files", len(got), len(want))
	}
	libInfo(t, db, nil)
}

// killSyncs runs `sync -v` rounds times, killing it after a random number
// of changes (up to maxChanges), and checks the library after each kill.
func killSyncs(t *testing.T, db, docs string, rng *rand.Rand, rounds, maxChanges int) {
	t.Helper()
	for round := range rounds {
		killAfter(t, db, rng, 1+rng.Intn(maxChanges), 20, func(l string) bool {
			return strings.HasPrefix(l, "ingested ") || strings.HasPrefix(l, "moved ") || strings.HasPrefix(l, "removed ")
		}, "sync", "-v", "--workers", "1", docs)
		info := libInfo(t, db, nil) // fails on an inconsistent library
		t.Logf("round %d: %d documents after the kill", round, info.Documents)
	}
}

// killAfter runs `mcpvec args` on db and kills it with SIGKILL once its
// stderr has shown want lines that counts accepts, plus a random delay of
// up to jitterMs milliseconds drawn from rng.
func killAfter(t *testing.T, db string, rng *rand.Rand, want, jitterMs int, counts func(line string) bool, args ...string) {
	t.Helper()
	jitter := time.Duration(rng.Intn(jitterMs)) * time.Millisecond
	kill9When(t, db, nil, func(stderr string) bool {
		got := 0
		for l := range strings.Lines(stderr) {
			if strings.HasSuffix(l, "\n") && counts(strings.TrimSuffix(l, "\n")) {
				got++
			}
		}
		return got >= want
	}, jitter, args...)
}
