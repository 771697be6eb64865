package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTEI is a Hugging Face TEI /rerank service on 127.0.0.1 that scores
// a text by how many times it says "kiwi" and counts the calls that carried
// the API key.
type fakeTEI struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls int
	// mode makes it misbehave: "slow" answers after 5 s, "short" scores
	// one text too few, "error" answers 503 with TEI's error body,
	// "hangup" closes the connection unanswered.
	mode string
}

// setMode sets how f answers from now on.
func (f *fakeTEI) setMode(m string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = m
}

func newFakeTEI(t *testing.T) *fakeTEI {
	f := &fakeTEI{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query string   `json:"query"`
			Texts []string `json:"texts"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/rerank" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.calls++
		mode := f.mode
		f.mu.Unlock()
		if misbehave(w, r, mode) {
			return
		}
		type scored struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		out := []scored{}
		for i, text := range req.Texts {
			out = append(out, scored{i, float64(strings.Count(text, "kiwi"))})
		}
		if mode == "short" {
			out = out[1:]
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// misbehave answers r as mode asks ("slow", "error", "hangup") and
// reports whether it did.
func misbehave(w http.ResponseWriter, r *http.Request, mode string) bool {
	switch mode {
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	case "error":
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":"Model is overloaded","error_type":"overloaded"}`)
		return true
	case "hangup":
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
	return false
}

// TestSearchRerankEndToEnd: `mcpvec search --rerank URL` puts the passage
// the reranker scores best first, though BM25 ranks it last; with the
// reranker down the search still answers, in BM25's order, with one
// warning.
func TestSearchRerankEndToEnd(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest",
		writeFile(t, filepath.Join(dir, "a.md"), "Lighthouse lighthouse lighthouse keepers trimmed wicks.\n"),
		writeFile(t, filepath.Join(dir, "b.md"), "Lighthouse keepers lived on the rocks for months.\n"),
		writeFile(t, filepath.Join(dir, "c.md"), "A lighthouse garden grew kiwi vines and more kiwi.\n"))
	top := func(env []string, args ...string) (string, string) {
		t.Helper()
		r := mcpvecEnv(t, db, env, append([]string{"search", "--json", "-k", "3"}, args...)...)
		var sr searchJSON
		if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil || r.code != 0 || len(sr.Results) != 3 {
			t.Fatalf("search %v: %v, exit %d, %s %s", args, err, r.code, r.stdout, r.stderr)
		}
		return sr.Results[0].Text, r.stderr
	}
	first, _ := top(nil, "lighthouse")
	if strings.Contains(first, "kiwi") {
		t.Fatalf("BM25 already ranks the kiwi passage first: %q", first)
	}
	tei := newFakeTEI(t)
	key := []string{"MCPVEC_RERANK_API_KEY=s3cret"}
	if got, _ := top(key, "--rerank", tei.srv.URL+"/rerank", "lighthouse"); !strings.Contains(got, "kiwi") {
		t.Errorf("reranked top = %q, want the kiwi passage", got)
	}
	if got, _ := top(append(key, "MCPVEC_RERANK="+tei.srv.URL+"/rerank"), "lighthouse"); !strings.Contains(got, "kiwi") {
		t.Errorf("$MCPVEC_RERANK: top = %q, want the kiwi passage", got)
	}
	tei.mu.Lock()
	calls := tei.calls
	tei.mu.Unlock()
	if calls != 2 {
		t.Errorf("%d rerank calls, want 2", calls)
	}
	down := tei.srv.URL + "/rerank"
	tei.srv.Close()
	got, stderr := top(key, "--rerank", down, "lighthouse")
	if got != first || strings.Count(stderr, "rerank skipped") != 1 {
		t.Errorf("reranker down: top %q (want %q), stderr %q", got, first, stderr)
	}
}

// TestServeRerankOverMCP: `serve --rerank URL` says so at start and an MCP
// search comes back reranked.
func TestServeRerankOverMCP(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	mustRun(t, db, "ingest",
		writeFile(t, filepath.Join(dir, "a.md"), "Lighthouse lighthouse lighthouse keepers trimmed wicks.\n"),
		writeFile(t, filepath.Join(dir, "c.md"), "A lighthouse garden grew kiwi vines and more kiwi.\n"))
	tei := newFakeTEI(t)
	s := startServe(t, db, []string{"MCPVEC_RERANK_API_KEY=s3cret"}, "--rerank", tei.srv.URL+"/rerank", "--rerank-model", "bge-reranker-v2-m3")
	waitOutput(t, s.Stderr, "rerank: on, the best 50 results by tei:bge-reranker-v2-m3@"+tei.srv.URL+"/rerank")
	if got := mcpSearch(t, s.c, "lighthouse"); len(got) != 2 || !strings.Contains(got[0], "kiwi") {
		t.Fatalf("MCP search = %q, want the kiwi passage first", got)
	}
}
