package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

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
