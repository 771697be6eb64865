package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/internal/topictext"
)

// TestBrowserLongQuery pastes a 20,000-character Greek text into the
// search box, as a person looking for more like it would: the page (its
// URL about 120 KB) shows the document on that text's topic first, with
// the words it was searched by marked. Over 1,000 characters the page
// said "The query is too long."; over 64 KB of URL the server answered 431.
func TestBrowserLongQuery(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	var paths []string
	for topic := range 4 {
		p := filepath.Join(f.Dir, "greek"+string(rune('0'+topic))+".txt")
		os.WriteFile(p, []byte(topictext.Greek(topictext.Text(topic, 1, 8000))), 0o600)
		paths = append(paths, p)
	}
	if _, err := f.Ingest(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	query, _ := json.Marshal(topictext.Greek(topictext.Text(2, 99, 20000)))
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("q").value = `+string(query), nil),
		chromedp.Click(`input[value="lexical"]`, chromedp.ByQuery),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits mark", chromedp.ByQuery))
	if got := text(t, ctx, "li.hit a.title"); !strings.HasPrefix(got, "greek2.txt") {
		t.Errorf("first result %q, want greek2.txt", got)
	}
	if n := evalJS[int](t, ctx, `document.getElementById("q").value.length`); n != 20000 {
		t.Errorf("the search box holds %d characters after the search, want the 20,000 pasted", n)
	}
}
