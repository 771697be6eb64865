package web_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestBrowser drives the pages in headless chromium, in the order a new
// user would: look at the library, open a document, search and follow a
// citation, upload, delete, connect, watch the activity; and it checks that
// a form post without the CSRF token is refused.
func TestBrowser(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	ctx := newBrowser(t)
	t.Run("list", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(f.URL+"/"), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
		body := text(t, ctx, "table.docs")
		mustContain(t, body, "Are Cats Attached to Their Homes?", "library")
		mustContain(t, body, "otters.txt", "library")
		mustContain(t, text(t, ctx, ".stats"), "2\ndocuments", "totals")
		shoot(t, ctx, "fixture-library")
	})
	t.Run("document", func(t *testing.T) {
		run(t, ctx, chromedp.Click(`//a[text()="Are Cats Attached to Their Homes?"]`, chromedp.BySearch),
			chromedp.WaitVisible("#page-3", chromedp.ByQuery))
		mustContain(t, text(t, ctx, "h1"), "Are Cats Attached", "document title")
		mustContain(t, text(t, ctx, "#docid"), f.docID(t, "Are Cats Attached to Their Homes?"), "id for fetch")
		if n := evalJS[int](t, ctx, `document.querySelectorAll(".passage").length`); n < 2 {
			t.Errorf("%d passage markers, want at least 2", n)
		}
		shoot(t, ctx, "fixture-document")
	})
	t.Run("search and follow a result to its PDF page", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/search"), chromedp.WaitVisible("#q", chromedp.ByID),
			chromedp.SendKeys("#q", "moving house with a cat", chromedp.ByID),
			chromedp.Click(`input[value="lexical"]`, chromedp.ByQuery))
		submitted(t, ctx, "#q", `document.querySelector("ol.hits") !== null`)
		var href string
		run(t, ctx, chromedp.AttributeValue("li.hit a.title", "href", &href, nil, chromedp.ByQuery))
		if !strings.Contains(href, "/docs/") || !strings.HasSuffix(href, "#page=3") {
			t.Fatalf("first result links to %q, want a /docs link at #page=3", href)
		}
		mustContain(t, text(t, ctx, "li.hit .retriever"), "lexical", "retriever")
		status := evalJS[string](t, ctx, `fetch(document.querySelector("li.hit a.title").href.split("#")[0]).then(r => r.status + " " + r.headers.get("content-type"))`)
		if status != "200 application/pdf" {
			t.Fatalf("following the citation: %s, want 200 application/pdf", status)
		}
		run(t, ctx, chromedp.Click(`input[value="hybrid"]`, chromedp.ByQuery))
		submitted(t, ctx, "#q", `location.search.includes("mode=hybrid") && document.querySelector("ol.hits") !== null`)
		shoot(t, ctx, "fixture-search")
	})
	t.Run("upload two files and find them", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "beavers.txt"), filepath.Join(dir, "herons.md")
		os.WriteFile(a, []byte("Beavers build dams of branches and mud across quiet streams.\n"), 0o600)
		os.WriteFile(b, []byte("# Herons\n\nGrey herons wait motionless in the shallows of quiet streams.\n"), 0o600)
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/add"), chromedp.WaitVisible("#files", chromedp.ByID))
		shoot(t, ctx, "fixture-add")
		run(t, ctx, chromedp.SetUploadFiles("#files", []string{a, b}, chromedp.ByID),
			chromedp.Click(`#upload button[type="submit"]`, chromedp.ByQuery),
			chromedp.WaitVisible("#upload-result", chromedp.ByQuery))
		mustContain(t, text(t, ctx, "#upload-result p.ok"), "2 files: 2 added.", "upload result")
		rows := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#upload-result tbody tr")].map(r => [...r.cells].map(c => c.textContent).join("|"))`)
		if got, want := strings.Join(rows, "\n"), "beavers.txt|added|beavers.txt\nherons.md|added|Herons"; got != want {
			t.Errorf("upload result rows:\n%s\nwant\n%s", got, want)
		}
		shoot(t, ctx, "fixture-upload")
		var loc string
		run(t, ctx, chromedp.Location(&loc))
		if loc != f.URL+"/ui/add" {
			t.Errorf("after the upload the page is %q, want /ui/add (the script shows the answer in place)", loc)
		}
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/search?q=quiet+streams&mode=lexical"), chromedp.WaitVisible("ol.hits", chromedp.ByQuery))
		hits := text(t, ctx, "ol.hits")
		mustContain(t, hits, "beavers.txt", "search after upload")
		mustContain(t, hits, "Herons", "search after upload")
		// The same two files again, one changed: the result says which. The
		// changed one is a different file of a name uploaded before, so it
		// is kept beside the first as "herons (2).md", never replacing it.
		os.WriteFile(b, []byte("# Herons\n\nGrey herons stand motionless in the shallows of quiet streams, then strike.\n"), 0o600)
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/add"), chromedp.WaitVisible("#files", chromedp.ByID),
			chromedp.SetUploadFiles("#files", []string{a, b}, chromedp.ByID),
			chromedp.Click(`#upload button[type="submit"]`, chromedp.ByQuery),
			chromedp.WaitVisible("#upload-result", chromedp.ByQuery))
		mustContain(t, text(t, ctx, "#upload-result p.ok"), "2 files: 1 added, 1 unchanged.", "second upload")
		mustContain(t, text(t, ctx, "table.uploads"), `saved as "herons (2).md"`, "second upload")
		run(t, ctx, chromedp.Click(`//table[@class="uploads"]//a[text()="Herons"]`, chromedp.BySearch),
			chromedp.WaitVisible(`//h1[text()="Herons"]`, chromedp.BySearch))
		mustContain(t, text(t, ctx, "section.page"), "then strike", "the new document")
	})
	t.Run("delete one", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(f.URL+"/?q=beavers"), chromedp.WaitVisible("table.docs", chromedp.ByQuery),
			chromedp.Click(`table.docs button.danger`, chromedp.ByQuery),
			chromedp.WaitVisible(`//p[contains(., "Showing 4 of 4")]`, chromedp.BySearch))
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/search?q=quiet+streams&mode=lexical"), chromedp.WaitVisible("ol.hits", chromedp.ByQuery))
		if hits := text(t, ctx, "ol.hits"); strings.Contains(hits, "beavers.txt") || !strings.Contains(hits, "Herons") {
			t.Fatalf("after deleting beavers.txt the search shows %q", hits)
		}
	})
	t.Run("CSRF refused", func(t *testing.T) {
		id := f.docID(t, "otters.txt")
		status := evalJS[int](t, ctx, `fetch("/ui/delete", {method: "POST", body: new URLSearchParams({id: "`+id+`"})}).then(r => r.status)`)
		if status != http.StatusForbidden {
			t.Fatalf("POST /ui/delete without the token = %d, want 403", status)
		}
		f.docID(t, "otters.txt") // still there
	})
	t.Run("connection test", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/connect"), chromedp.WaitVisible("#tq", chromedp.ByID))
		mustContain(t, text(t, ctx, "#mcpurl"), f.URL+"/mcp", "connector URL")
		run(t, ctx, chromedp.Click(`//button[text()="Test the connection"]`, chromedp.BySearch),
			chromedp.WaitVisible("#testresult", chromedp.ByID))
		mustContain(t, text(t, ctx, "#testresult"), "Connection works", "connection test")
		shoot(t, ctx, "fixture-connect")
	})
	t.Run("activity", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(f.URL+"/ui/activity"), chromedp.WaitVisible("table", chromedp.ByQuery))
		mustContain(t, text(t, ctx, "table"), "mcpvec-web-test", "activity")
		shoot(t, ctx, "fixture-activity")
	})
}

// TestBrowserSignIn checks that an exposed server sends the browser to the
// sign-in page, and that the owner's token lets it in.
func TestBrowserSignIn(t *testing.T) {
	f := mustServe(t, fixtureOptions{Exposed: true})
	ctx := newBrowser(t)
	var loc string
	run(t, ctx, chromedp.Navigate(f.URL+"/"), chromedp.WaitVisible("#secret", chromedp.ByID), chromedp.Location(&loc))
	if loc != f.URL+"/ui/signin" {
		t.Fatalf("exposed / went to %q, want the sign-in page", loc)
	}
	shoot(t, ctx, "signin")
	run(t, ctx, chromedp.SendKeys("#secret", "wrong", chromedp.ByID), chromedp.Submit("#secret", chromedp.ByID),
		chromedp.WaitVisible(".error", chromedp.ByQuery))
	run(t, ctx, chromedp.SendKeys("#secret", testToken, chromedp.ByID), chromedp.Submit("#secret", chromedp.ByID),
		chromedp.WaitVisible("table.docs", chromedp.ByQuery))
}

// TestBrowserDocumentView opens a citation of a slide deck in chromium:
// the view's inline stylesheet is allowed by its policy, the page lands on
// the cited slide, and text that looks like markup stays text.
func TestBrowserDocumentView(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	ctx := newBrowser(t)
	slides := make([]string, 3)
	for i := range slides {
		slides[i] = strings.Repeat(fmt.Sprintf("Slide %d talks about sea otters at length.\n", i+1), 60)
	}
	slides[0] += `<img src=x onerror="document.title='owned'">`
	deck := filepath.Join(t.TempDir(), "deck.pptx")
	if err := os.WriteFile(deck, extracttest.PPTX(t, "Otter deck", slides...), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(f.URL+"/ui/add"), chromedp.WaitVisible("#files", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{deck}, chromedp.ByID),
		chromedp.Click(`#upload button[type="submit"]`, chromedp.ByQuery), chromedp.WaitVisible("p.ok", chromedp.ByQuery))
	// The document page links to the original; the view is that link's /view.
	run(t, ctx, chromedp.Navigate(f.URL+"/ui/doc/"+f.docID(t, "Otter deck")), chromedp.WaitVisible("h1", chromedp.ByQuery))
	mustContain(t, text(t, ctx, `label[for="jump"]`), "Go to slide", "the document page's jump")
	mustContain(t, text(t, ctx, "dl.facts"), "PowerPoint", "type")
	var original string
	run(t, ctx, chromedp.AttributeValue(`//a[text()="open the original"]`, "href", &original, nil, chromedp.BySearch))
	if !regexp.MustCompile(`/docs/[0-9a-f]+/[A-Za-z0-9_-]+$`).MatchString(original) {
		t.Fatalf("original link %q", original)
	}
	run(t, ctx, chromedp.Navigate(original+"/view#slide-3"), chromedp.WaitVisible("#slide-3", chromedp.ByID))
	if top := evalJS[float64](t, ctx, `document.getElementById("slide-3").getBoundingClientRect().top`); top < -1 || top > 5 {
		t.Errorf("slide 3 is %.0f px from the top of the window, want it scrolled to the top", top)
	}
	if y := evalJS[float64](t, ctx, `window.scrollY`); y < 500 {
		t.Errorf("scrollY = %.0f, want the page scrolled down to slide 3", y)
	}
	// style.css sets body { margin: 0 }; a blocked stylesheet leaves 8px.
	if m := evalJS[string](t, ctx, `getComputedStyle(document.body).marginTop`); m != "0px" {
		t.Errorf("body margin %s: the inline stylesheet was blocked", m)
	}
	if title := evalJS[string](t, ctx, `document.title`); title != "Otter deck" {
		t.Errorf("title = %q", title)
	}
	mustContain(t, text(t, ctx, "#slide-1"), `<img src=x onerror=`, "slide 1 shows the markup as text")
	mustContain(t, text(t, ctx, "#slide-3 h2"), "Slide 3", "unit heading")
	shoot(t, ctx, "view")
}
