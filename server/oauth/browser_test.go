package oauth

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// The connectors' real redirect URIs. The browser has no network: the
// test catches the navigation to them and answers it itself.
const (
	chatGPTRedirect = "https://chatgpt.com/connector_platform_oauth_redirect"
	claudeRedirect  = "https://claude.ai/api/mcp/auth_callback"
)

// chromium finds a chromium to drive, or skips the test (fails it when
// MCPVEC_BROWSER_TESTS=required, as in CI).
func chromium(t *testing.T) string {
	for _, name := range []string{os.Getenv("MCPVEC_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); name != "" && err == nil {
			return p
		}
	}
	msg := "no chromium found: install it (apt-get install chromium) or set MCPVEC_CHROMIUM to run the browser tests"
	if os.Getenv("MCPVEC_BROWSER_TESTS") == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// signInBrowser is a headless chromium whose navigations to the
// connectors' hosts are intercepted: their URLs arrive on landed.
type signInBrowser struct {
	ctx    context.Context
	landed chan string
}

func newSignInBrowser(t *testing.T) *signInBrowser {
	// Not t.TempDir: chromium may still write its profile as it exits,
	// which fails TempDir's own cleanup.
	profile, err := os.MkdirTemp("", "mcpvec-oauth-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium(t)), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))
	ctx, _ := chromedp.NewContext(actx)
	t.Cleanup(func() {
		chromedp.Cancel(ctx)
		cancelA()
		removeEventually(profile)
	})
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)
	b := &signInBrowser{ctx: ctx, landed: make(chan string, 8)}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go b.land(e)
		}
	})
	doc := network.ResourceTypeDocument // not the favicon
	patterns := []*fetch.RequestPattern{{URLPattern: "https://chatgpt.com/*", ResourceType: doc}, {URLPattern: "https://claude.ai/*", ResourceType: doc}}
	if err := chromedp.Run(ctx, fetch.Enable().WithPatterns(patterns)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// removeEventually removes dir, retrying for two seconds.
func removeEventually(dir string) {
	for range 10 {
		if os.RemoveAll(dir) == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// land answers an intercepted request to a connector with a tiny page and
// reports its URL.
func (b *signInBrowser) land(e *fetch.EventRequestPaused) {
	b.landed <- e.Request.URL + e.Request.URLFragment
	chromedp.Run(b.ctx, fetch.FulfillRequest(e.RequestID, 200).
		WithResponseHeaders([]*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}}).
		WithBody("PGgxPmNvbm5lY3RvcjwvaDE+")) // <h1>connector</h1>
}

// run runs actions, failing after 30 seconds so a stuck step shows its line.
func (b *signInBrowser) run(t *testing.T, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// await returns the URL the browser was sent to at the connector, failing
// when none comes within 20 seconds (as when the page's CSP blocks it).
func (b *signInBrowser) await(t *testing.T, redirect string) url.Values {
	t.Helper()
	select {
	case got := <-b.landed:
		u, err := url.Parse(got)
		if err != nil || !strings.HasPrefix(got, redirect+"?") {
			t.Fatalf("the browser went to %q, want %s?…", got, redirect)
		}
		return u.Query()
	case <-time.After(20 * time.Second):
		var loc, body string
		b.run(t, chromedp.Location(&loc), chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &body))
		t.Fatalf("the browser never reached %s; it is at %s showing %.300q", redirect, loc, body)
	}
	return nil
}

// TestBrowserConsentReturnsToConnector signs in through the consent page
// as a person does, with ChatGPT's and Claude's real redirect URIs: typed
// passphrase and Approve, Deny, and Continue after `mcpvec auth approve`.
// Each must bring the browser back to the connector with code (or error),
// state and iss; a form-action of 'self' alone made Chromium block that.
func TestBrowserConsentReturnsToConnector(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	b := newSignInBrowser(t)
	client := e.register(chatGPTRedirect, claudeRedirect)
	for _, redirect := range []string{chatGPTRedirect, claudeRedirect} {
		for _, action := range []string{"approve", "deny", "continue"} {
			t.Run(strings.SplitN(redirect, "/", 4)[2]+"/"+action, func(t *testing.T) {
				state := "st-" + action
				_, challenge := pkce("b")
				q := authParams(client, challenge)
				q.Set("redirect_uri", redirect)
				q.Set("state", state)
				b.run(t, chromedp.Navigate(e.url(pathAuthorize)+"?"+q.Encode()), chromedp.WaitVisible("#passphrase", chromedp.ByID))
				got := b.consent(t, e, action)
				if action == "deny" {
					if got.Get("error") != "access_denied" || got.Get("code") != "" {
						t.Errorf("deny: error=%q code=%q, want access_denied and no code", got.Get("error"), got.Get("code"))
					}
				} else if got.Get("code") == "" || got.Get("error") != "" {
					t.Errorf("%s: code=%q error=%q, want a code", action, got.Get("code"), got.Get("error"))
				}
				if got.Get("state") != state || got.Get("iss") != e.ts.URL {
					t.Errorf("state=%q iss=%q, want %q and %q", got.Get("state"), got.Get("iss"), state, e.ts.URL)
				}
			})
		}
	}
}

var approveCodeRE = regexp.MustCompile(`[A-Z2-9]{4}-[A-Z2-9]{4}`)

// consent answers the open consent page with action, as the owner would,
// and returns the query the connector received.
func (b *signInBrowser) consent(t *testing.T, e *testEnv, action string) url.Values {
	t.Helper()
	redirect := ""
	b.run(t, chromedp.Evaluate(`new URL(location.href).searchParams.get("redirect_uri")`, &redirect))
	switch action {
	case "approve":
		b.run(t, chromedp.SendKeys("#passphrase", testPass, chromedp.ByID),
			chromedp.Click(`button[value="approve"]`, chromedp.ByQuery))
	case "deny":
		b.run(t, chromedp.Click(`button[value="deny"]`, chromedp.ByQuery))
	case "continue":
		// Continue before approval shows the page again, then works once
		// the owner ran the command it names.
		var cmd, problem string
		b.run(t, chromedp.Text("code", &cmd, chromedp.ByQuery), chromedp.Click(`button[value="continue"]`, chromedp.ByQuery),
			chromedp.WaitVisible(".error", chromedp.ByQuery), chromedp.Text(".error", &problem, chromedp.ByQuery))
		if !strings.Contains(problem, "Not approved yet") {
			t.Fatalf("continue before approval: %q", problem)
		}
		if _, err := Approve(e.st, approveCodeRE.FindString(cmd), e.clock.Now()); err != nil {
			t.Fatalf("approve %q: %v", cmd, err)
		}
		b.run(t, chromedp.Click(`button[value="continue"]`, chromedp.ByQuery))
	}
	return b.await(t, redirect)
}

// TestBrowserConsentPage checks the consent page's look: the site's
// stylesheet applies (the CSP allows it by hash), it fits a phone, it
// passes axe-core in light and dark mode, and it runs no script.
// Screenshots go to server/testdata/oauth/screenshots with -update, else
// to a temporary folder whose path is logged.
func TestBrowserConsentPage(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	b := newSignInBrowser(t)
	client := e.register(chatGPTRedirect)
	_, challenge := pkce("c")
	q := authParams(client, challenge)
	q.Set("redirect_uri", chatGPTRedirect)
	b.run(t, chromedp.Navigate(e.url(pathAuthorize)+"?"+q.Encode()), chromedp.WaitVisible("#passphrase", chromedp.ByID))
	var border string
	b.run(t, chromedp.Evaluate(`getComputedStyle(document.querySelector("header")).borderBottomStyle`, &border))
	if border != "solid" {
		t.Fatalf("the stylesheet did not apply (header border %q): is its CSP hash right?", border)
	}
	dir := filepath.Join("..", "testdata", "oauth", "screenshots")
	if !golden.Update() {
		var err error
		if dir, err = os.MkdirTemp("", "mcpvec-oauth-screenshots-"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	for _, scheme := range []string{"light", "dark"} {
		b.run(t, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}))
		for _, vp := range []struct {
			name string
			w, h int64
			opts []chromedp.EmulateViewportOption
		}{{"desktop", 1280, 900, nil}, {"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}}} {
			var png []byte
			var overflow bool
			b.run(t, chromedp.EmulateViewport(vp.w, vp.h, vp.opts...), chromedp.CaptureScreenshot(&png),
				chromedp.Evaluate(`document.documentElement.scrollWidth > innerWidth`, &overflow))
			if overflow {
				t.Errorf("%s %s: the page is wider than the screen", vp.name, scheme)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("consent-%s-%s.png", vp.name, scheme)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b.checkAxe(t, scheme)
	}
}

// checkAxe runs axe-core in the page and fails on serious or critical
// violations. DevTools evaluation is not bound by the page's CSP.
func (b *signInBrowser) checkAxe(t *testing.T, scheme string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "node", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Logf("axe-core not installed (%v); run: (cd server/testdata/node && npm ci)", err)
		return
	}
	var violations []string
	b.run(t, chromedp.Evaluate(string(src), nil), chromedp.Evaluate(`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]}})
  .then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id + ": " + v.help))`,
		&violations, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	for _, v := range violations {
		t.Errorf("axe (%s): %s", scheme, v)
	}
}
