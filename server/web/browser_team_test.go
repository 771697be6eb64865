package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// TestBrowserTeamSignIn: a person clicks "Sign in with Test ID", fills the
// real provider's login form (on another site: localhost, the pages on
// 127.0.0.1), comes back signed in, sees in the switcher only the
// libraries she may read, is refused another library's page, has no
// upload or delete controls where she may only read, and has them where
// she may write.
func TestBrowserTeamSignIn(t *testing.T) {
	tm := serveTeam(t)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(tm.URL+"/papers/"), chromedp.WaitVisible("#signin-provider", chromedp.ByID),
		chromedp.Click("#signin-provider", chromedp.ByID),
		chromedp.WaitVisible(`input[name="username"]`, chromedp.ByQuery))
	var loc string
	run(t, ctx, chromedp.Location(&loc))
	if !strings.HasPrefix(loc, tm.Kit.Issuer) {
		t.Fatalf("Sign in with Test ID went to %s, want the provider %s", loc, tm.Kit.Issuer)
	}
	run(t, ctx, chromedp.SendKeys(`input[name="username"]`, oidctest.Ann.Username, chromedp.ByQuery),
		chromedp.SendKeys(`input[name="password"]`, oidctest.Ann.Password, chromedp.ByQuery),
		chromedp.Submit(`input[name="password"]`, chromedp.ByQuery),
		chromedp.WaitVisible("table.docs", chromedp.ByQuery), chromedp.Location(&loc))
	if loc != tm.URL+"/papers/" {
		t.Fatalf("after the provider: %s, want %s/papers/", loc, tm.URL)
	}
	mustContain(t, text(t, ctx, "table.docs"), "tides.txt", "papers as Ann")
	mustContain(t, text(t, ctx, "header"), oidctest.Ann.Email, "header")
	if libs := text(t, ctx, `nav[aria-label="Libraries"]`); !strings.Contains(libs, "notes") || strings.Contains(libs, "secret") {
		t.Fatalf("switcher for Ann: %q, want papers and notes only", libs)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('a[href$="/ui/add"], button.danger').length`); n != 0 {
		t.Fatalf("papers (read only) shows %d write controls to Ann", n)
	}
	shoot(t, ctx, "team-reader")
	run(t, ctx, chromedp.Navigate(tm.URL+"/secret/"), chromedp.WaitVisible("h1", chromedp.ByQuery))
	mustContain(t, text(t, ctx, "main"), "Not allowed", "secret as Ann")
	if got := text(t, ctx, "main"); strings.Contains(got, "salaries") {
		t.Fatalf("secret's page shows its documents to Ann:\n%s", got)
	}
	run(t, ctx, chromedp.Navigate(tm.URL+"/notes/"), chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	if n := evalJS[int](t, ctx, `document.querySelectorAll('a[href="/notes/ui/add"], button.danger').length`); n < 2 {
		t.Fatalf("notes (write) shows %d write controls to Ann, want Add and Delete", n)
	}
}
