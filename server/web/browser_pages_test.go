package web_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/library"
)

// TestBrowserLibraryTable: with long titles and deep folders the library
// table keeps each document on one line (path cut with the whole of it in
// the title attribute), names types as people do, keeps Delete on screen
// at 1280 and 1440 px, and its filters fit a phone.
func TestBrowserLibraryTable(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	deep := filepath.Join(f.Dir, "Projects", "2026 annual planning and budgeting", "Quarterly reports from every regional office", "Northern region")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(deep, "a-very-long-file-name-for-the-northern-regional-office-quarterly-report-for-the-third-quarter.txt")
	os.WriteFile(long, []byte("The northern office met its targets for the third quarter.\n"), 0o600)
	docx := filepath.Join(deep, "minutes.docx")
	os.WriteFile(docx, extracttest.DOCX(t, "Minutes of the planning meeting of the northern regional office, held in the autumn of 2026 in the main hall",
		"The meeting agreed the budget."), 0o600)
	if _, err := f.Ingest(context.Background(), []string{long, docx}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(f.URL+"/"), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	for _, w := range []int64{1280, 1440} {
		run(t, ctx, chromedp.EmulateViewport(w, 900))
		checkControlsFit(t, ctx, "library", w)
		for i, h := range evalJS[[]float64](t, ctx, `[...document.querySelectorAll("table.docs tbody tr")].map(r => r.getBoundingClientRect().height)`) {
			if h > 48 {
				t.Errorf("at %d px row %d is %.0f px tall, want one line", w, i+1, h)
			}
		}
	}
	types := evalJS[[]string](t, ctx, `[...document.querySelectorAll("table.docs tbody tr")].map(r => r.cells[1].textContent)`)
	slices.Sort(types)
	if got, want := strings.Join(types, " "), "PDF Text Text Word"; got != want {
		t.Errorf("type column %q, want %q", got, want)
	}
	titles := evalJS[[]string](t, ctx, `[...document.querySelectorAll("table.docs td.src")].map(c => c.title)`)
	if !slices.Contains(titles, long) {
		t.Errorf("no source cell has the whole path %q in its title: %q", long, titles)
	}
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	checkControlsFit(t, ctx, "library-phone", 390)
	run(t, ctx, chromedp.SetValue("#ftype", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", chromedp.ByID),
		chromedp.Click(`form.filters button`, chromedp.ByQuery), chromedp.WaitVisible(`//p[contains(., "Showing 1 of 4")]`, chromedp.BySearch))
	if got := evalJS[string](t, ctx, `document.getElementById("ftype").selectedOptions[0].textContent`); got != "Word" {
		t.Errorf("type filter shows %q, want Word", got)
	}
	mustContain(t, text(t, ctx, "table.docs tbody"), "Minutes of the planning meeting", "filtered to Word")
}

// TestBrowserSearchMarksAndPages types a query as a person would, sees its
// words marked in the snippets (stemmed as the index does: "cats" marks
// "cat"; markup in a document stays text), and pages through the results
// and back.
func TestBrowserSearchMarksAndPages(t *testing.T) {
	f := mustServe(t, fixtureOptions{MaxResults: 2})
	dir := t.TempDir()
	var paths []string
	for i, s := range []string{
		"A cat sleeps on the warm windowsill all afternoon.",
		"Feral cats keep the barn free of mice.",
		"The old cat's whiskers twitch when the door opens.",
		"Markup such as <b>cat</b> in a page stays text.",
		"Our neighbour feeds three cats every morning.",
	} {
		p := filepath.Join(dir, "note"+string(rune('a'+i))+".txt")
		os.WriteFile(p, []byte(s+"\n"), 0o600)
		paths = append(paths, p)
	}
	if _, err := f.Ingest(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.SendKeys("#q", "cats", chromedp.ByID), chromedp.Click(`input[value="lexical"]`, chromedp.ByQuery),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits", chromedp.ByQuery))
	marks := evalJS[[]string](t, ctx, `[...document.querySelectorAll("li.hit .snippet mark")].map(m => m.textContent)`)
	if len(marks) == 0 {
		t.Fatal("no <mark> in the results")
	}
	for _, m := range marks {
		if !strings.HasPrefix(strings.ToLower(m), "cat") {
			t.Errorf("marked %q for the query cats", m)
		}
	}
	all, err := f.Live.Current().Search(context.Background(), "cats", library.SearchOptions{K: 50, Mode: library.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	want := len(all.Results)
	seen, snippets, page := map[string]bool{}, "", 1
	for ; ; page++ {
		if page > want {
			t.Fatalf("more than %d pages for %d results", want, want)
		}
		for _, r := range evalJS[[]string](t, ctx, `[...document.querySelectorAll("li.hit .rank")].map(r => r.textContent)`) {
			if seen[r] {
				t.Errorf("page %d repeats rank %s", page, r)
			}
			seen[r] = true
		}
		snippets += text(t, ctx, "ol.hits")
		if evalJS[int](t, ctx, `document.querySelectorAll(".snippet b").length`) != 0 {
			t.Error("markup in a document became markup in the page")
		}
		var loc string
		run(t, ctx, chromedp.Location(&loc))
		if page > 1 && (!strings.Contains(loc, "q=cats") || !strings.Contains(loc, "mode=lexical")) {
			t.Errorf("page %d at %q lost the query or mode", page, loc)
		}
		if evalJS[int](t, ctx, `document.querySelectorAll("a[rel=next]").length`) == 0 {
			break
		}
		run(t, ctx, chromedp.Click(`a[rel=next]`, chromedp.ByQuery),
			chromedp.WaitVisible(`//span[@class="rank" and text()="#`+strconv.Itoa(2*page+1)+`"]`, chromedp.BySearch))
	}
	if len(seen) != want || want < 6 {
		t.Errorf("paged through %d results, the library finds %d (want at least the six documents)", len(seen), want)
	}
	mustContain(t, snippets, "<b>cat</b>", "markup shown as text")
	run(t, ctx, chromedp.Click(`a[rel=prev]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//span[@class="rank" and text()="#`+strconv.Itoa(2*page-3)+`"]`, chromedp.BySearch))
}

// TestBrowserDocumentPages jumps to a page of a document as a person would
// (types its number, presses Go), then steps back with Previous and picks
// one from the page list.
func TestBrowserDocumentPages(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	ctx := newBrowser(t)
	doc := f.URL + "/ui/doc/" + f.docID(t, "Are Cats Attached to Their Homes?")
	run(t, ctx, chromedp.Navigate(doc), chromedp.WaitVisible("#jump", chromedp.ByID))
	pages := evalJS[int](t, ctx, `document.querySelectorAll("section.page").length`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll("nav.pagenav .pagelist a").length`); n != pages || n < 3 {
		t.Fatalf("page list of %d links for %d pages (want 3 or more)", n, pages)
	}
	last := "#page-" + strconv.Itoa(pages)
	at := func(want string) {
		t.Helper()
		var loc string
		run(t, ctx, chromedp.Location(&loc))
		if !strings.HasSuffix(loc, want) {
			t.Fatalf("at %q, want %s", loc, want)
		}
		// At the top of the window, or as near as the end of the page lets it.
		js := `[document.getElementById("` + strings.TrimPrefix(want, "#") + `").getBoundingClientRect().top,
		  window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1]`
		var r []any
		run(t, ctx, chromedp.Evaluate(js, &r))
		top, end := r[0].(float64), r[1].(bool)
		if top < -2 || top > 5 && !(end && top < 500) {
			t.Errorf("%s is %.0f px from the top of the window", want, top)
		}
	}
	run(t, ctx, chromedp.SendKeys("#jump", "3", chromedp.ByID), chromedp.Click(`form.jump button`, chromedp.ByQuery),
		chromedp.WaitVisible("#page-3", chromedp.ByID), chromedp.Sleep(300e6))
	at("#page-3")
	run(t, ctx, chromedp.Click(`#page-3 a[rel=prev]`, chromedp.ByQuery), chromedp.Sleep(300e6))
	at("#page-2")
	run(t, ctx, chromedp.Click(`#page-2 a[rel=next]`, chromedp.ByQuery), chromedp.Sleep(300e6))
	at("#page-3")
	run(t, ctx, chromedp.Click(`//ol[@class="pagelist"]//a[contains(., "1")]`, chromedp.BySearch), chromedp.Sleep(300e6))
	at("#page-1")
	run(t, ctx, chromedp.Navigate(doc+"?page=99"), chromedp.WaitVisible(last, chromedp.ByQuery), chromedp.Sleep(300e6))
	at(last)
	shoot(t, ctx, "fixture-document-pages")
}
