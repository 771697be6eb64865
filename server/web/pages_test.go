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
