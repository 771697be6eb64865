package web_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/web"
	"github.com/mcpvec/mcpvec/store"
)

// groupLibrary is one library of serveGroup: its name and one document.
type groupLibrary struct{ name, file, text string }

// serveGroup serves the libraries on one address as `mcpvec serve
// --library NAME=PATH…` does (server.Group, each under /NAME, the web
// pages sharing the first one's sign-in), behind testToken, and returns
// the address.
func serveGroup(t *testing.T, libs []groupLibrary) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var links []web.LibraryLink
	for _, l := range libs {
		links = append(links, web.LibraryLink{Name: l.name, Base: "/" + l.name})
	}
	var srvs []*server.Server
	var first *web.Handler
	for _, l := range libs {
		live := groupLive(t, l, quiet)
		var srv *server.Server
		h, err := web.New(web.Options{Library: live, Logger: quiet, Token: testToken, Base: "/" + l.name, Libraries: links, Share: first,
			Link: func(r *http.Request, id string, page int, anchor string) string {
				return srv.DocURL(r, id, page, anchor)
			}})
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
	return "http://" + ln.Addr().String()
}

// groupLive opens a new library file holding l's one document.
func groupLive(t *testing.T, l groupLibrary, log *slog.Logger) *library.Live {
	live, _, _ := groupStore(t, l, log)
	return live
}

// groupStore is groupLive with the library's store and ingest pipeline.
func groupStore(t *testing.T, l groupLibrary, log *slog.Logger) (*library.Live, *store.DB, ingestFunc) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, l.name+".db"), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	emb := embed.NewHash(embed.DefaultHashConfig())
	if err := db.SetEmbedder(store.EmbedderInfo(emb.Identity())); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, emb, library.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	live := library.NewLive(lib)
	doc := filepath.Join(dir, l.file)
	os.WriteFile(doc, []byte(l.text), 0o600)
	ing := ingester(t, emb, live)
	if _, err := ing(context.Background(), []string{doc}); err != nil {
		t.Fatal(err)
	}
	return live, db, ing
}

// TestBrowserLibrarySwitcher: on a server of two libraries, one sign-in
// opens both; the header's switcher moves from one library's pages to the
// other's, whose search finds its own document, not the first one's, with
// a citation link under its own path.
func TestBrowserLibrarySwitcher(t *testing.T) {
	base := serveGroup(t, []groupLibrary{
		{"papers", "tides.txt", "Tide tables for the harbour entrance, measured at the pier.\n"},
		{"notes", "errands.txt", "Errands: buy rope at the harbour chandlery on Saturday.\n"},
	})
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("#secret", chromedp.ByID),
		chromedp.SendKeys("#secret", testToken, chromedp.ByID), chromedp.Submit("#secret", chromedp.ByID),
		chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	mustContain(t, text(t, ctx, "table.docs"), "tides.txt", "papers library")
	run(t, ctx, chromedp.Click(`//nav[@aria-label="Libraries"]/a[text()="notes"]`, chromedp.BySearch),
		chromedp.WaitVisible("table.docs", chromedp.ByQuery))
	mustContain(t, text(t, ctx, "table.docs"), "errands.txt", "notes library after the switch")
	mustContain(t, text(t, ctx, `nav[aria-label="Libraries"] a[aria-current="page"]`), "notes", "current library")
	shoot(t, ctx, "libraries-switched")
	run(t, ctx, chromedp.Click(`//nav[@aria-label="Main"]/a[text()="Search"]`, chromedp.BySearch),
		chromedp.WaitVisible("#q", chromedp.ByID), chromedp.SendKeys("#q", "harbour", chromedp.ByID),
		chromedp.Submit("#q", chromedp.ByID), chromedp.WaitVisible("ol.hits", chromedp.ByQuery))
	hits := text(t, ctx, "ol.hits")
	if !strings.Contains(hits, "errands.txt") || strings.Contains(hits, "tides.txt") {
		t.Fatalf("search in notes found:\n%s", hits)
	}
	var loc, href string
	run(t, ctx, chromedp.Location(&loc), chromedp.AttributeValue("li.hit a.title", "href", &href, nil, chromedp.ByQuery))
	if !strings.HasPrefix(loc, base+"/notes/ui/search?") || !strings.HasPrefix(href, base+"/notes/docs/") {
		t.Fatalf("search page %s, citation %s: want both under /notes/", loc, href)
	}
	if got := evalJS[int](t, ctx, `fetch(document.querySelector("li.hit a.title").href).then(r => r.status)`); got != http.StatusOK {
		t.Fatalf("following the notes citation: %d", got)
	}
}
