package web_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/server/web"
	"github.com/mcpvec/mcpvec/store"
)

// TestBrowserLibraryPageByTitle: a library of more documents than one page
// (three a page here) lists, page by page through the Next links, every
// document once in title order (case folded), descending when asked, and
// the first page follows an ingest and a removal; no view lists and sorts
// the whole library (the first view after start took 2-6 s at 25,000
// documents when each did): the store reads each page alone
// (store.DB.TitlePage). The order is worked out here from the documents.
func TestBrowserLibraryPageByTitle(t *testing.T) {
	defer web.SetLibraryPageSize(3)()
	f := mustServe(t, fixtureOptions{})
	var paths []string
	for _, name := range []string{"Walrus", "beaver", "Alpaca", "capybara", "Dingo", "echidna", "ferret"} {
		p := filepath.Join(f.Dir, name+".txt")
		os.WriteFile(p, []byte("The "+name+" lives here and eats what it finds.\n"), 0o600)
		paths = append(paths, p)
	}
	if _, err := f.Ingest(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	builds, restore := web.CountListBuilds()
	defer restore()
	want := titlesInOrder(t, f, false)
	if got := readPages(t, ctx, f.URL+"/", 3); !slices.Equal(got, want) {
		t.Errorf("pages in title order list %q, want %q", got, want)
	}
	run(t, ctx, chromedp.SetValue("#fdir", "desc", chromedp.ByID), chromedp.Click(`form.filters button`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[contains(., "page 1 of 3")]`, chromedp.BySearch))
	want = titlesInOrder(t, f, true)
	if got := pageTitles(t, ctx); !slices.Equal(got, want[:3]) {
		t.Errorf("first page descending %q, want %q", got, want[:3])
	}
	aardvark := filepath.Join(f.Dir, "aardvark.txt")
	os.WriteFile(aardvark, []byte("The aardvark digs for ants at night.\n"), 0o600)
	if _, err := f.Ingest(context.Background(), []string{aardvark}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Live.Current().Remove(context.Background(), idOf(t, f, "Alpaca.txt")); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(f.URL+"/"), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	want = titlesInOrder(t, f, false)
	if got := pageTitles(t, ctx); !slices.Equal(got, want[:3]) || got[0] != "aardvark.txt" {
		t.Errorf("first page after an ingest and a removal %q, want %q", got, want[:3])
	}
	mustContain(t, text(t, ctx, "p.meta[aria-live]"), "Showing 1–3 of 9", "the count after the writes")
	if got := builds(); got != 0 {
		t.Errorf("pages in title order listed and sorted the whole library %d times, want none", got)
	}
}

// readPages reads the titles of every page from url on, following the
// Next links, and checks there are pages of them.
func readPages(t *testing.T, ctx context.Context, url string, pages int) []string {
	t.Helper()
	run(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	var titles []string
	for i := 1; ; i++ {
		titles = append(titles, pageTitles(t, ctx)...)
		if evalJS[bool](t, ctx, `!document.querySelector('a[rel="next"]')`) {
			if i != pages {
				t.Errorf("%d pages, want %d", i, pages)
			}
			return titles
		}
		if i > pages {
			t.Fatalf("more than %d pages", pages)
		}
		run(t, ctx, chromedp.Click(`a[rel="next"]`, chromedp.ByQuery), chromedp.WaitVisible(`a[rel="prev"]`, chromedp.ByQuery))
	}
}

func pageTitles(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return evalJS[[]string](t, ctx, `[...document.querySelectorAll("table.docs tbody tr")].map(r => r.cells[0].textContent)`)
}

// titlesInOrder is every document's title as a person expects them in
// title order: case folded, ties by id.
func titlesInOrder(t *testing.T, f *fixture, desc bool) []string {
	t.Helper()
	docs, err := f.Live.Current().Listing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(a, b *store.Document) int {
		c := cmp.Or(cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)), cmp.Compare(a.ID, b.ID))
		if desc {
			return -c
		}
		return c
	})
	var titles []string
	for _, d := range docs {
		titles = append(titles, d.Title)
	}
	return titles
}

func idOf(t *testing.T, f *fixture, title string) string {
	t.Helper()
	docs, err := f.Live.Current().Listing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Title == title {
			return d.ID
		}
	}
	t.Fatalf("no document titled %q", title)
	return ""
}
