package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillDuringIngest kills `mcpvec ingest` with SIGKILL at random moments,
// repeatedly. After every kill the library must open, pass its consistency
// check, hold no partial document, and still hold every document that was
// there before; a final run completes the ingest.
func TestKillDuringIngest(t *testing.T) {
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
		var info struct {
			Documents  int    `json:"documents"`
			Passages   int    `json:"passages"`
			Vectors    int    `json:"vectors"`
			Consistent bool   `json:"consistent"`
			Problems   string `json:"problems"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &info); err != nil {
			if strings.Contains(r.stderr, "no library") {
				continue // killed before the file was created
			}
			t.Fatalf("round %d: info: %v\n%s\n%s", round, err, r.stdout, r.stderr)
		}
		if !info.Consistent || info.Passages != info.Vectors {
			t.Fatalf("round %d: inconsistent library after kill: %+v", round, info)
		}
		var ls struct{ Documents []struct{ Source string } }
		json.Unmarshal([]byte(mustRun(t, db, "ls", "--json")), &ls)
		now := map[string]bool{}
		for _, d := range ls.Documents {
			now[d.Source] = true
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
	var ls struct{ Documents []struct{ Source string } }
	json.Unmarshal([]byte(mustRun(t, db, "ls", "--json")), &ls)
	if len(ls.Documents) != nFiles {
		t.Fatalf("after the final run %d documents, want %d", len(ls.Documents), nFiles)
	}
	if out := mustRun(t, db, "search", "--json", "-k", "1", "Document 42 paragraph 7"); !strings.Contains(out, "doc042.txt") {
		t.Fatalf("search after recovery: %s", out)
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
