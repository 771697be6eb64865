package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
)

// TestReadsDuringIngest is issue 34 item 4: while a plain `mcpvec ingest`
// of 1,000 PDFs runs (no server), `ls`, `search`, `info` and `fetch` from
// other processes succeed, answered by the ingest from the library it is
// writing, and later ones see more documents; a write is refused naming
// the ingest.
func TestReadsDuringIngest(t *testing.T) {
	t.Parallel()
	testReadsDuring(t, "ingest", 1000, "an ingest is running")
}

// TestReadsDuringSync is TestReadsDuringIngest for a first `mcpvec sync`
// of 600 PDFs, which holds the library as long as an ingest does.
func TestReadsDuringSync(t *testing.T) {
	t.Parallel()
	testReadsDuring(t, "sync", 600, "a sync is running")
}

// testReadsDuring runs `mcpvec cmd --workers 1 FOLDER` on n PDFs and reads
// from other processes until it ends; busy is how a write is refused.
func testReadsDuring(t *testing.T, cmd string, n int, busy string) {
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	writePDFs(t, docs, n)
	w, err := childproc.Start(childCmd(context.Background(), db, nil, cmd, "--workers", "1", docs))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Kill()
	waitLibrary(t, w, db)

	var counts []int
	refused := false
	for deadline := time.Now().Add(3 * time.Minute); len(counts) < 100 && time.Now().Before(deadline); {
		seen, newest := readRound(t, db)
		select {
		case <-w.Done(): // the round may have run after the writer: not counted
		default:
			counts = append(counts, seen)
			if newest != "" && !refused {
				otherReads(t, db, newest)
				refusedWrite(t, db, newest, fmt.Sprintf("%s (PID %d); try again when it ends", busy, w.Pid()))
				refused = true
			}
			continue
		}
		break
	}
	<-w.Done()
	if code := w.Cmd.ProcessState.ExitCode(); code != 0 || len(lsDocs(t, db)) != n {
		t.Fatalf("%s: exit %d, want 0 and %d documents\nstdout %s\nstderr %s", cmd, code, n, w.Stdout, childproc.Tail(w.Stderr.String(), 20))
	}
	t.Logf("documents seen by each round during the %s: %v", cmd, counts)
	// Two rounds at least: how many fit in depends on how fast this machine
	// runs the writer against the readers' processes (a first sync of 600
	// PDFs left room for two on an idle 2-core machine).
	if !refused || len(counts) < 2 || counts[len(counts)-1] <= counts[0] {
		t.Fatalf("documents seen during the %s: %v; want at least 2 rounds, the later seeing more, and a refused rm (%v)", cmd, counts, refused)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Fatalf("documents seen during the %s went down: %v", cmd, counts)
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

// waitLibrary returns once the writing command ing has created the
// library file (it holds its lock from then on).
func waitLibrary(t *testing.T, ing *childproc.Proc, db string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(db); err == nil {
			return
		}
		select {
		case <-ing.Done():
			t.Fatalf("%v ended before it created the library: %s", ing.Cmd.Args[1:], ing.Stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v created no library within a minute", ing.Cmd.Args[1:])
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
		t.Fatalf("ls during a write: exit %d, %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	if len(ls.Documents) == 0 {
		return 0, ""
	}
	newest = ls.Documents[len(ls.Documents)-1].Source // sorted by path
	seq := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(newest), "f"), ".pdf")
	r = mcpvec(t, db, "search", "--json", "seq"+seq)
	if r.code != 0 || !strings.Contains(r.stdout, "seq"+seq) {
		t.Fatalf("search for seq%s during a write: exit %d\nstdout %s\nstderr %s", seq, r.code, r.stdout, r.stderr)
	}
	return len(ls.Documents), newest
}

// otherReads checks that `info` and `fetch` of document doc succeed
// during a write, info finding the library consistent.
func otherReads(t *testing.T, db, doc string) {
	t.Helper()
	r := mcpvec(t, db, "info", "--json")
	var info struct{ Documents int }
	if err := json.Unmarshal([]byte(r.stdout), &info); r.code != 0 || err != nil || info.Documents == 0 || !strings.Contains(r.stdout, `"consistent": true`) {
		t.Fatalf("info during a write: exit %d, %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	id := docID(t, db, doc)
	if r := mcpvec(t, db, "fetch", id); r.code != 0 || !strings.Contains(r.stdout, "wicks were trimmed") {
		t.Fatalf("fetch %s during a write: %+v", id, r)
	}
}

// refusedWrite checks that `rm` and `serve` during a writing command are
// refused at once with want, and that rm removed nothing.
func refusedWrite(t *testing.T, db, doc, want string) {
	t.Helper()
	for _, args := range [][]string{{"rm", doc}, {"serve", "--addr", "127.0.0.1:0"}} {
		r := runChild(t, db, nil, 30*time.Second, args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Fatalf("%s during a write: exit %d, stderr %q; want 1 and %q", args[0], r.code, r.stderr, want)
		}
	}
	if r := mcpvec(t, db, "ls"); !strings.Contains(r.stdout, filepath.Base(doc)) {
		t.Fatalf("ls after the refused rm of %s: %+v", doc, r)
	}
}

// TestStdioDuringIngest: a desktop app's `serve --stdio`, started while a
// plain ingest holds the library, is served by that ingest over the admin
// channel (it was refused: "an ingest is running"), and its search sees
// the documents committed so far.
func TestStdioDuringIngest(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	docs := filepath.Join(dir, "docs")
	writePDFs(t, docs, 400)
	w, err := childproc.Start(childCmd(context.Background(), db, nil, "ingest", "--workers", "1", docs))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Kill()
	waitLibrary(t, w, db)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if n, _ := readRound(t, db); n > 0 { // a document to find
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ingest committed no document within a minute")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := childCmd(ctx, db, nil, "serve", "--stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &synctest.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close() // a desktop app keeps stdin open until it has its answers
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"lighthouse keepers wicks"}}}
`)
	var answer struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent struct {
				Results []struct{ ID, Title string } `json:"results"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for answer.ID != 2 && sc.Scan() {
		lines = append(lines, sc.Text())
		json.Unmarshal(sc.Bytes(), &answer)
	}
	select {
	case <-w.Done():
		t.Skip("the ingest ended before the stdio session ran: nothing beside a writer was tested")
	default:
	}
	if answer.ID != 2 || len(answer.Result.StructuredContent.Results) == 0 {
		t.Fatalf("no search results over stdio during the ingest:\n%s\nstderr %s", strings.Join(lines, "\n"), stderr.String())
	}
	waitOutput(t, stderr, "holder=ingest") // stderr says the ingest serves the session
}
