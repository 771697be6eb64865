package web_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSearchFilters: the search page's type, document, folder and
// date controls narrow the results as the operators they compose do, the
// composed query is shown, and a control that matches nothing says so.
func TestBrowserSearchFilters(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	files := []struct{ path, word, date string }{
		{"work/alpha.md", "alpha", "2023-06-01"}, {"work/bravo.txt", "bravo", "2024-03-10"},
		{"home/charlie.md", "charlie", "2024-05-01"}, {"home/delta.txt", "delta", "2022-01-01"},
	}
	var paths []string
	for _, file := range files {
		p := filepath.Join(f.Dir, "docs", filepath.FromSlash(file.path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("The "+file.word+" pump primes itself with water.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		when, _ := time.Parse(time.DateOnly, file.date)
		os.Chtimes(p, when, when)
		paths = append(paths, p)
	}
	if _, err := f.Ingest(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	found := func() []string {
		var snippets []string
		run(t, b, chromedp.Evaluate(`[...document.querySelectorAll("ol.hits p.snippet")].map(e => e.textContent)`, &snippets))
		var words []string
		for _, s := range snippets {
			for _, file := range files {
				if strings.Contains(s, file.word) && !slices.Contains(words, file.word) {
					words = append(words, file.word)
				}
			}
		}
		slices.Sort(words)
		return words
	}
	for _, c := range []struct {
		name  string
		set   map[string]string // control id → value
		words []string
		full  string
	}{
		{"type", map[string]string{"#f-type": "md"}, []string{"alpha", "charlie"}, "pump type:md"},
		{"folder", map[string]string{"#f-path": "home/"}, []string{"charlie", "delta"}, "pump path:home/"},
		{"document", map[string]string{"#f-in": "bravo*"}, []string{"bravo"}, "pump in:bravo*"},
		{"dates", map[string]string{"#f-after": "2023-01-01", "#f-before": "2024-04-01"}, []string{"alpha", "bravo"}, "pump after:2023-01-01 before:2024-04-01"},
		{"folder and type", map[string]string{"#f-path": "work/", "#f-type": "txt"}, []string{"bravo"}, "pump type:txt path:work/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			actions := []chromedp.Action{chromedp.Navigate(f.URL + "/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
				chromedp.SendKeys("#q", "pump", chromedp.ByID)}
			for sel, v := range c.set {
				actions = append(actions, chromedp.SetValue(sel, v, chromedp.ByQuery))
			}
			actions = append(actions, chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits li", chromedp.ByQuery))
			run(t, b, actions...)
			if got := found(); !slices.Equal(got, c.words) {
				t.Errorf("documents %v, want %v", got, c.words)
			}
			mustContain(t, text(t, b, "code.full"), c.full, "the composed query")
		})
	}
	run(t, b, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.SendKeys("#q", "pump", chromedp.ByID), chromedp.SetValue("#f-in", "nosuchdoc", chromedp.ByQuery),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("p.note", chromedp.ByQuery))
	mustContain(t, text(t, b, "p.note"), "in:nosuchdoc matches no document in the library", "the note")
	// Typed operators work on the page as in the tool; the controls stay.
	run(t, b, chromedp.Navigate(f.URL+"/ui/search?q=pump+-path:work/&type=txt"), chromedp.WaitVisible("ol.hits li", chromedp.ByQuery))
	if got, want := found(), []string{"delta"}; !slices.Equal(got, want) {
		t.Errorf("typed operator with a control: documents %v, want %v", got, want)
	}
	shoot(t, b, "search-filters")
}
