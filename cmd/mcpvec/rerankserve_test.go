package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// lighthouseLib is a library of three passages BM25 ranks for
// "lighthouse" with the kiwi one (the fake reranker's favourite) last.
func lighthouseLib(t *testing.T) (db string) {
	dir, db := tempLib(t)
	mustRun(t, db, "ingest",
		writeFile(t, filepath.Join(dir, "a.md"), "Lighthouse lighthouse lighthouse keepers trimmed wicks.\n"),
		writeFile(t, filepath.Join(dir, "b.md"), "Lighthouse keepers lived on the rocks for months.\n"),
		writeFile(t, filepath.Join(dir, "c.md"), "A lighthouse garden grew kiwi vines and more kiwi.\n"))
	return db
}

// TestServeRerankFailuresOverMCP: through a real MCP client of `serve
// --rerank URL --rerank-timeout 400ms`, a search is reranked while the
// service answers, and comes back in the first stage's order, with one
// warning each and within the deadline, when the service is slow, answers
// one score short, answers 503 or hangs up. Each query is new (cased
// differently) so that no cached score answers it.
func TestServeRerankFailuresOverMCP(t *testing.T) {
	t.Parallel()
	db := lighthouseLib(t)
	var sr searchJSON
	if err := json.Unmarshal([]byte(mustRun(t, db, "search", "--json", "lighthouse")), &sr); err != nil {
		t.Fatal(err)
	}
	var first []string
	for _, r := range sr.Results {
		first = append(first, r.Text)
	}
	if len(first) != 3 || strings.Contains(first[0], "kiwi") {
		t.Fatalf("first stage %q: want three results, kiwi not first", first)
	}
	tei := newFakeTEI(t)
	const deadline = 400 * time.Millisecond
	s := startServe(t, db, []string{"MCPVEC_RERANK_API_KEY=s3cret"},
		"--rerank", tei.srv.URL+"/rerank", "--rerank-timeout", deadline.String(), "--rerank-top", "20")
	waitOutput(t, s.Stderr, "rerank: on, the best 20 results by tei:@"+tei.srv.URL+"/rerank, within 400ms a search")
	if got := mcpSearch(t, s.c, "lighthouse"); len(got) != 3 || !strings.Contains(got[0], "kiwi") {
		t.Fatalf("reranked over MCP: %q, want the kiwi passage first", got)
	}
	for i, mode := range []string{"slow", "short", "error", "hangup"} {
		tei.setMode(mode)
		query := []string{"Lighthouse", "LIGHTHOUSE", "lightHouse", "LightHouse"}[i]
		start := time.Now()
		got := mcpSearch(t, s.c, query)
		took := time.Since(start)
		if !slices.Equal(got, first) {
			t.Errorf("%s: %q, want the first stage's %q", mode, got, first)
		}
		if took > deadline+1500*time.Millisecond {
			t.Errorf("%s: the search took %v, the deadline is %v", mode, took, deadline)
		}
		// The child's stderr is read as it comes: wait a little for it.
		n := 0
		for wait := time.Now().Add(2 * time.Second); n <= i && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
			n = strings.Count(s.Stderr.String(), "rerank skipped")
		}
		if n != i+1 {
			t.Errorf("%s: %d warnings after %d failures, want one each:\n%s", mode, n, i+1, s.Stderr)
		}
	}
}

// TestRerankRecordedAndShown: `info` says "none" for a library never
// served with a reranker; serve --rerank records it (no API key, no
// secret of the URL) and info shows it, on the command line and in JSON;
// a later serve without --rerank says what the library was last served
// with and does not rerank.
func TestRerankRecordedAndShown(t *testing.T) {
	t.Parallel()
	db := lighthouseLib(t)
	if out := mustRun(t, db, "info"); !strings.Contains(out, "reranker:   none\n") {
		t.Fatalf("info before any reranker:\n%s", out)
	}
	tei := newFakeTEI(t)
	s := startServe(t, db, []string{"MCPVEC_RERANK_API_KEY=s3cret"},
		"--rerank", tei.srv.URL+"/rerank?api_key=hidden", "--rerank-model", "bge-reranker-base")
	waitOutput(t, s.Stderr, "rerank: on")
	want := "reranker:   tei bge-reranker-base at " + tei.srv.URL + "/rerank (last served with it"
	info := mustRun(t, db, "info") // handed to the running server
	if !strings.Contains(info, want) || strings.Contains(info, "hidden") || strings.Contains(info, "s3cret") {
		t.Errorf("info while serving:\n%s\nwant %q and no secret", info, want)
	}
	s.Stop()
	var j struct{ Reranker rerankRecord }
	if err := json.Unmarshal([]byte(mustRun(t, db, "info", "--json")), &j); err != nil {
		t.Fatal(err)
	}
	if r := j.Reranker; r.URL != tei.srv.URL+"/rerank" || r.Model != "bge-reranker-base" || r.Format != "tei" || r.Since.IsZero() {
		t.Errorf("info --json reranker = %+v", r)
	}
	s = startServe(t, db, nil)
	waitOutput(t, s.Stderr, "rerank: off (this library was last served with tei bge-reranker-base at "+tei.srv.URL+"/rerank; --rerank URL turns it on)")
	if got := mcpSearch(t, s.c, "lighthouse"); len(got) != 3 || strings.Contains(got[0], "kiwi") {
		t.Errorf("serve without --rerank reranked: %q", got)
	}
}

// TestSearchRerankFlags: `search` prints the reranked mark and the first
// rank; --rerank-top 2 leaves the third passage where BM25 put it (so
// nothing moves), as $MCPVEC_RERANK_TOP does; --rerank-timeout bounds a
// slow reranker; bad values are refused.
func TestSearchRerankFlags(t *testing.T) {
	t.Parallel()
	db := lighthouseLib(t)
	tei := newFakeTEI(t)
	url := tei.srv.URL + "/rerank"
	key := []string{"MCPVEC_RERANK_API_KEY=s3cret"}
	out := mustRunEnv(t, db, key, "search", "-k", "3", "--rerank", url, "lighthouse")
	if lines := strings.Split(out, "\n"); !strings.HasPrefix(lines[0], "1. ") || !strings.HasSuffix(lines[0], "  (reranked, was 3)") {
		t.Errorf("first line %q, want it marked reranked, was 3:\n%s", lines[0], out)
	}
	plain := mustRun(t, db, "search", "-k", "3", "lighthouse")
	if strings.Contains(plain, "reranked") {
		t.Errorf("search without --rerank marked:\n%s", plain)
	}
	for _, env := range [][]string{nil, {"MCPVEC_RERANK_TOP=2"}} {
		args := []string{"search", "-k", "3", "--rerank", url, "lighthouse"}
		if env == nil {
			args = []string{"search", "-k", "3", "--rerank", url, "--rerank-top", "2", "lighthouse"}
		}
		if got := mustRunEnv(t, db, append(env, key...), args...); strings.Contains(strings.Split(got, "\n")[0], "kiwi") {
			t.Errorf("top 2 (%v) moved the third passage up:\n%s", env, got)
		}
	}
	tei.setMode("slow")
	start := time.Now()
	r := mcpvecEnv(t, db, key, "search", "-k", "3", "--rerank", url, "--rerank-timeout", "300ms", "LIGHTHOUSE")
	if took := time.Since(start); r.code != 0 || took > 4*time.Second || !strings.Contains(r.stderr, "rerank skipped") {
		t.Errorf("slow reranker, 300ms: exit %d after %v, stderr %s", r.code, took, r.stderr)
	}
	for _, bad := range [][]string{{"--rerank-top", "0"}, {"--rerank-top", "1001"}, {"--rerank-timeout", "0s"}} {
		r := mcpvecEnv(t, db, nil, append([]string{"search", "--rerank", url}, append(bad, "lighthouse")...)...)
		if r.code == 0 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
	r = mcpvecEnv(t, db, []string{"MCPVEC_RERANK_TIMEOUT=soon"}, "search", "--rerank", url, "lighthouse")
	if r.code == 0 || !strings.Contains(r.stderr, "MCPVEC_RERANK_TIMEOUT") {
		t.Errorf("$MCPVEC_RERANK_TIMEOUT=soon: exit %d, stderr %q", r.code, r.stderr)
	}
}
