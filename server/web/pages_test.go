package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestFavicon: every page names an SVG icon served from static, under the
// same content security policy as the rest (no inline script).
func TestFavicon(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	_, body := get(t, c, f.URL+"/")
	if !strings.Contains(body, `<link rel="icon" href="/ui/static/favicon.svg" type="image/svg+xml">`) {
		t.Fatal("the library page names no icon")
	}
	resp, svg := get(t, c, f.URL+"/ui/static/favicon.svg")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(svg, "<svg") {
		t.Fatalf("icon: %d %q %.40q", resp.StatusCode, resp.Header.Get("Content-Type"), svg)
	}
	if strings.Contains(svg, "<script") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatal("the icon carries script or is served without the policy")
	}
}

// TestSearchPageOutOfRange: a result page far past the end (or past what
// an int holds) shows that there are no more results, with a way back.
func TestSearchPageOutOfRange(t *testing.T) {
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	for _, page := range []string{"50", "9223372036854775807", "-3"} {
		resp, body := get(t, c, f.URL+"/ui/search?mode=lexical&q=cats&page="+page)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page %s: %d", page, resp.StatusCode)
		}
		if page == "-3" {
			if !strings.Contains(body, "Results 1–") {
				t.Errorf("page %s does not show the first results", page)
			}
			continue
		}
		if !strings.Contains(body, "No more results") || !strings.Contains(body, `rel="prev"`) {
			t.Errorf("page %s: no 'No more results' with a link back", page)
		}
	}
}
