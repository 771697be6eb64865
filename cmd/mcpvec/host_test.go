package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
)

// TestReadsDuringIngest is issue 34 item 4: while a plain `mcpvec ingest`
// of 1,000 PDFs runs (no server), `ls` and `search` from other processes
// succeed, answered by the ingest from the library it is writing, and
// later ones see more documents; a write is refused naming the ingest.
func TestReadsDuringIngest(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	writePDFs(t, docs, 1000)
	ing, err := childproc.Start(childCmd(context.Background(), db, nil, "ingest", "--workers", "1", docs))
	if err != nil {
		t.Fatal(err)
	}
	defer ing.Kill()
	waitLibrary(t, ing, db)

	var counts []int
	refused := false
	for deadline := time.Now().Add(3 * time.Minute); len(counts) < 100 && time.Now().Before(deadline); {
		n, newest := readRound(t, db)
		select {
		case <-ing.Done(): // the round may have run after the ingest: not counted
		default:
			counts = append(counts, n)
			if newest != "" && !refused {
				refusedWrite(t, db, newest, ing.Pid())
				refused = true
			}
			continue
		}
		break
	}
	<-ing.Done()
	if !strings.Contains(ing.Stdout.String(), "ingested 1000 documents") {
		t.Fatalf("ingest: stdout %q\nstderr %s", ing.Stdout, childproc.Tail(ing.Stderr.String(), 20))
	}
	t.Logf("documents seen by each round during the ingest: %v", counts)
	if !refused || len(counts) < 3 || counts[len(counts)-1] <= counts[0] {
		t.Fatalf("documents seen during the ingest: %v; want at least 3 rounds, the later seeing more, and a refused rm (%v)", counts, refused)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Fatalf("documents seen during the ingest went down: %v", counts)
		}
	}
}

// writePDFs writes n one-page PDFs f0000.pdf… into dir; each names its
// own number (seqNNNN) beside words they all share.
func writePDFs(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		page := minipdf.Page{"Lighthouse keepers log", fmt.Sprintf("entry seq%04d: the wicks were trimmed at dusk", i)}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.pdf", i)), minipdf.Write([]minipdf.Page{page}, minipdf.Options{}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitLibrary returns once the ingest has created the library file (it
// holds its lock from then on).
func waitLibrary(t *testing.T, ing *childproc.Proc, db string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(db); err == nil {
			return
		}
		select {
		case <-ing.Done():
			t.Fatalf("ingest ended before it created the library: %s", ing.Stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the ingest created no library within a minute")
		}
	}
}

// readRound runs `ls --json`, then `search` for the newest document it
// listed (if any), which must find it; it returns how many documents ls
// listed and the newest one's path.
func readRound(t *testing.T, db string) (n int, newest string) {
	t.Helper()
	r := mcpvec(t, db, "ls", "--json")
	var ls struct{ Documents []lsDoc }
	if err := json.Unmarshal([]byte(r.stdout), &ls); r.code != 0 || err != nil {
		t.Fatalf("ls during the ingest: exit %d, %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	if len(ls.Documents) == 0 {
		return 0, ""
	}
	newest = ls.Documents[len(ls.Documents)-1].Source // sorted by path
	seq := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(newest), "f"), ".pdf")
	r = mcpvec(t, db, "search", "--json", "seq"+seq)
	if r.code != 0 || !strings.Contains(r.stdout, "seq"+seq) {
		t.Fatalf("search for seq%s during the ingest: exit %d\nstdout %s\nstderr %s", seq, r.code, r.stdout, r.stderr)
	}
	return len(ls.Documents), newest
}

// refusedWrite checks that `rm` and `serve` during the ingest are refused
// at once, naming the ingest, and that rm removed nothing.
func refusedWrite(t *testing.T, db, doc string, pid int) {
	t.Helper()
	want := fmt.Sprintf("an ingest is running (PID %d); try again when it ends", pid)
	for _, args := range [][]string{{"rm", doc}, {"serve", "--addr", "127.0.0.1:0"}} {
		r := runChild(t, db, nil, 30*time.Second, args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Fatalf("%s during the ingest: exit %d, stderr %q; want 1 and %q", args[0], r.code, r.stderr, want)
		}
	}
	if r := mcpvec(t, db, "ls"); !strings.Contains(r.stdout, filepath.Base(doc)) {
		t.Fatalf("ls after the refused rm of %s: %+v", doc, r)
	}
}
