package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/rerank"
)

// reversingReranker is a Jina-style /v1/rerank service on 127.0.0.1 that
// scores the documents it is sent in reverse: the last one sent best.
func reversingReranker(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Documents []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"detail":"bad json"}`, http.StatusBadRequest)
			return
		}
		var out []string
		for i := range req.Documents {
			out = append(out, fmt.Sprintf(`{"index":%d,"relevance_score":%d}`, i, i))
		}
		fmt.Fprintf(w, `{"model":"rev","results":[%s]}`, strings.Join(out, ","))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/rerank"
}

// TestBrowserSearchReranked searches on the page, as a person would, with
// a reranker that reverses the first stage: the results come back in the
// reverse order, each marked reranked with the rank it had before.
func TestBrowserSearchReranked(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	dir := t.TempDir()
	var paths []string
	for i := range 4 {
		p := filepath.Join(dir, "heron"+strconv.Itoa(i)+".txt")
		os.WriteFile(p, []byte(strings.Repeat("heron ", 4-i)+fmt.Sprintf("note %d stands in the shallows.\n", i)), 0o600)
		paths = append(paths, p)
	}
	if _, err := f.Ingest(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	first, err := f.Live.Current().Search(context.Background(), "heron", library.SearchOptions{K: 10, Mode: library.Lexical})
	if err != nil || len(first.Results) != 4 {
		t.Fatalf("first stage: %v, %d results", err, len(first.Results))
	}
	c := &rerank.Client{URL: reversingReranker(t), Model: "rev"}
	f.Live.Swap(f.Live.Current().WithRerank(library.RerankOptions{Reranker: c}))
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.SendKeys("#q", "heron", chromedp.ByID), chromedp.Click(`input[value="lexical"]`, chromedp.ByQuery),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits", chromedp.ByQuery))
	ids := evalJS[[]string](t, ctx, `[...document.querySelectorAll("li.hit code.id")].map(c => c.textContent)`)
	heads := evalJS[[]string](t, ctx, `[...document.querySelectorAll("li.hit .hit-head")].map(h => h.textContent.replace(/\s+/g, " ").trim())`)
	if len(ids) != 4 || len(heads) != 4 {
		t.Fatalf("%d results on the page (ids %q), want 4", len(heads), ids)
	}
	for i, id := range ids {
		was := len(ids) - i // reversed
		if want := first.Results[was-1].ID; id != want {
			t.Errorf("result %d is %s, want %s (first-stage #%d)", i+1, id, want, was)
		}
		mustContain(t, heads[i], fmt.Sprintf("#%d reranked · was #%d", i+1, was), "result head")
	}
	mustContain(t, text(t, ctx, "p.meta"), "reranked by jina:rev@http://127.0.0.1:", "results line")
	if n := evalJS[int](t, ctx, `document.querySelectorAll("li.hit .rerank-score").length`); n != 4 {
		t.Errorf("%d rerank scores shown, want 4", n)
	}
}
