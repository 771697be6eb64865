package web_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/oidc"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
	"github.com/mcpvec/mcpvec/server/web"
)

// teamPolicy is a small identity.Policy (the seam; server/policy's
// allow-list is the real one): rights by verified e-mail and library,
// changed while the server runs.
type teamPolicy struct {
	mu    sync.Mutex
	rules map[string][]identity.Right // "email library"
}

func (p *teamPolicy) Allows(who identity.Person, lib string, r identity.Right) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return who.EmailVerified && slices.Contains(p.rules[who.Email+" "+lib], r)
}

func (p *teamPolicy) set(email, lib string, rights ...identity.Right) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules[email+" "+lib] = rights
}

// teamAudit is an AuditLog of fixed entries; keys maps a person's
// issuer#subject to their label.
type teamAudit struct {
	entries []web.AuditEntry
	keys    map[string]string
}

func (a teamAudit) Entries(_ context.Context, user string, since time.Time, n int) ([]web.AuditEntry, error) {
	var out []web.AuditEntry
	for _, e := range a.entries {
		if (user == "" || e.User == user || a.keys[user] == e.User) && e.Time.After(since) && len(out) < n {
			out = append(out, e)
		}
	}
	return out, nil
}

// team is a server of three libraries (papers, notes, secret) on
// 127.0.0.1 whose web pages sign people in through a real OpenID provider
// on localhost (another site, as a team's provider is): Ann may read
// papers and write notes, nobody but the owner (testToken) sees secret,
// Bob may do nothing.
type team struct {
	URL    string
	Kit    *oidctest.Provider
	Policy *teamPolicy

	mu    sync.Mutex
	wrote []string // "action library person" of each upload and removal, as Ingest and Removed saw them
}

func (tm *team) writes() []string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return slices.Clone(tm.wrote)
}

// record notes a write in ctx, by the person it carries.
func (tm *team) record(ctx context.Context, action, lib string) {
	p, _ := identity.FromContext(ctx)
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.wrote = append(tm.wrote, action+" "+lib+" "+p.Label())
}

var teamLibraries = []groupLibrary{
	{"papers", "tides.txt", "Tide tables for the harbour entrance, measured at the pier.\n"},
	{"notes", "errands.txt", "Errands: buy rope at the harbour chandlery on Saturday.\n"},
	{"secret", "salaries.txt", "Salaries of the harbour staff for next year.\n"},
}

func serveTeam(t *testing.T) *team {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tm := &team{URL: "http://" + ln.Addr().String(), Policy: &teamPolicy{rules: map[string][]identity.Right{}}}
	tm.Kit = oidctest.Start(t, []string{tm.URL + web.CallbackPath})
	rp, err := oidc.New(context.Background(), oidc.Config{Issuer: tm.Kit.Issuer, ClientID: tm.Kit.ClientID, ClientSecret: tm.Kit.ClientSecret})
	if err != nil {
		t.Fatal(err)
	}
	tm.Policy.set(oidctest.Ann.Email, "papers", identity.Read)
	tm.Policy.set(oidctest.Ann.Email, "notes", identity.Read, identity.Write)
	now := time.Now()
	audit := teamAudit{entries: []web.AuditEntry{
		{Time: now.Add(-time.Minute), User: oidctest.Ann.Email, Library: "papers", Action: "search", Target: "tide tables"},
		{Time: now.Add(-2 * time.Minute), User: oidctest.Bob.Email, Library: "secret", Action: "search", Target: "bob's own query"},
	}, keys: map[string]string{tm.Kit.Issuer + "#" + oidctest.Ann.ID: oidctest.Ann.Email}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var links []web.LibraryLink
	for _, l := range teamLibraries {
		links = append(links, web.LibraryLink{Name: l.name, Base: "/" + l.name})
	}
	var srvs []*server.Server
	var first *web.Handler
	for _, l := range teamLibraries {
		live, db, ing := groupStore(t, l, quiet)
		var srv *server.Server
		h, err := web.New(web.Options{Library: live, Logger: quiet, Token: testToken, Base: "/" + l.name, Libraries: links, Share: first,
			Link: func(r *http.Request, id string, page int, anchor string) string {
				return srv.DocURL(r, id, page, anchor)
			},
			LibraryPath: db.Path(), Ingest: tm.ingest(uploader(t.TempDir(), db, ing), l.name), SignIn: rp, SignInName: "Test ID", Policy: tm.Policy, Name: l.name, Audit: audit,
			Removed: func(ctx context.Context, _ string, _ int) { tm.record(ctx, "remove", l.name) }})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = h
		}
		srv, err = server.New(live, server.Options{Addr: ln.Addr().String(), Token: testToken, Web: h, Mount: "/" + l.name, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		srvs = append(srvs, srv)
	}
	serveGroupOn(t, ln, srvs)
	return tm
}

// ingest wraps up, recording each upload.
func (tm *team) ingest(up func(context.Context, []web.File) ([]web.Upload, error), lib string) func(context.Context, []web.File) ([]web.Upload, error) {
	return func(ctx context.Context, files []web.File) ([]web.Upload, error) {
		tm.record(ctx, "upload", lib)
		return up(ctx, files)
	}
}

// serveGroupOn serves srvs as a server.Group on ln until the test ends.
func serveGroupOn(t *testing.T, ln net.Listener, srvs []*server.Server) {
	g, err := server.NewGroup(srvs...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// start begins a sign-in at the web page of library lib in c and returns
// the provider URL it sends the browser to and the binding cookie.
func (tm *team) start(t *testing.T, c *http.Client, lib string) (string, *http.Cookie) {
	t.Helper()
	resp, _ := get(t, c, tm.URL+"/"+lib+"/ui/signin/start")
	loc, err := resp.Location()
	if resp.StatusCode != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc.String(), tm.Kit.Issuer) {
		t.Fatalf("start: %s to %v, want a redirect to the provider %s", resp.Status, loc, tm.Kit.Issuer)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "mcpvec_signin" {
			return loc.String(), ck
		}
	}
	t.Fatal("start set no sign-in cookie")
	return "", nil
}

// authorize signs u in at the provider's authURL and returns the
// callback URL the provider sends the browser back to.
func (tm *team) authorize(t *testing.T, authURL string, u oidctest.User) string {
	t.Helper()
	back, err := tm.Kit.Authorize(context.Background(), authURL, u.Username, u.Password)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.String(), tm.URL+web.CallbackPath+"?") {
		t.Fatalf("provider sent the browser to %s", back)
	}
	return back.String()
}

// signIn signs u in in a new client and returns it with the callback's
// answer.
func (tm *team) signIn(t *testing.T, u oidctest.User) (*http.Client, *http.Response, string) {
	t.Helper()
	c := newClient(t)
	authURL, _ := tm.start(t, c, "papers")
	resp, body := get(t, c, tm.authorize(t, authURL, u))
	return c, resp, body
}

// withCookie is a new client holding only ck, for tm's address.
func (tm *team) withCookie(t *testing.T, ck *http.Cookie) *http.Client {
	c := newClient(t)
	u, _ := url.Parse(tm.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/"}})
	return c
}
