package library_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/rerank"
)

// TestRerankAddedLatency measures what the rerank stage adds to a search
// when the reranker (a TEI service on 127.0.0.1) answers in 20 ms: p50 and
// p99 of 200 searches, each a new query (no cached scores), with and
// without the stage. Run with MCPVEC_RERANK_LATENCY=1; figures in
// docs/benchmarks/rerank.md.
func TestRerankAddedLatency(t *testing.T) {
	if os.Getenv("MCPVEC_RERANK_LATENCY") == "" {
		t.Skip("set MCPVEC_RERANK_LATENCY=1 to measure")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Texts []string }
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(20 * time.Millisecond)
		out := make([]map[string]float64, len(req.Texts))
		for i := range out {
			out[i] = map[string]float64{"index": float64(i), "score": float64(i % 7)}
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	f := newFixture(t, library.Options{Mode: library.Lexical})
	var pages []string
	for i := range 400 {
		pages = append(pages, fmt.Sprintf("passage %d about w%d w%d and w%d with some more words to read", i, i%50, i%31, i%17))
	}
	f.Add(t, "doc", "Doc", "text/plain", "", pages...)
	on := f.Lib.WithRerank(library.RerankOptions{Reranker: &rerank.Client{URL: srv.URL + "/rerank"}})
	for _, l := range []struct {
		name string
		lib  *library.Library
	}{{"off", f.Lib}, {"on", on}} {
		var took []time.Duration
		for i := range 200 {
			q := fmt.Sprintf("w%d w%d passage %d", i%50, i%31, i)
			start := time.Now()
			if _, err := l.lib.Search(context.Background(), q, library.SearchOptions{}); err != nil {
				t.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("rerank %s: p50 %v p99 %v", l.name, took[len(took)/2].Round(10*time.Microsecond), took[len(took)*99/100].Round(10*time.Microsecond))
	}
}
