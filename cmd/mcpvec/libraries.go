package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/server/web"
)

// Several libraries, one server: `mcpvec serve --library papers=PATH
// --library notes=PATH` serves each library under its own path
// (/papers/mcp, /papers/sse, /papers/docs/…, the web page at /papers/),
// each its own OAuth resource, each file opened as one serve opens it
// (its writer lock, its admin channel, so `mcpvec search --library notes`
// reaches it). /mcp and /sse are refused: a client names its library.
// One --library is served at the plain paths, as --db is.

// serveConfig is what serve's flags decided, for serveLibraries.
type serveConfig struct {
	fs                                    *flag.FlagSet
	lf                                    *libFlags
	ef                                    *embedFlags
	o                                     server.Options
	origins                               stringList
	stdio, secret, readOnly, oauth, noWeb bool
	wf                                    *watchFlags
	ro                                    library.RerankOptions
	bf                                    *backupFlags
	team                                  *teamFlags
	af                                    *authFlags
}

// servedLib is one library of a serve of several.
type servedLib struct {
	ref      libraryRef
	h        *handle
	o        server.Options
	readOnly bool
	st       *serveState
	srv      *server.Server
}

// checkLibraries refuses what a serve of several libraries cannot do.
func (c *serveConfig) checkLibraries() error {
	switch {
	case c.stdio:
		return errors.New("--stdio serves one library: give one --library (or --db)")
	case c.lf.db != "" || c.lf.store != "":
		return errLibraryFlags
	case c.wf.on && len(c.wf.paths) > 0:
		return errors.New("--watch FOLDER… with several libraries: sync each folder into its library once, then --watch alone keeps every library's folders current")
	}
	for _, r := range c.lf.libs {
		if r.path == "" {
			return fmt.Errorf("--library %s: give its file, --library %s=PATH", r.name, r.name)
		}
	}
	return nil
}

// serveLibraries serves the --library libraries of c on one address.
func serveLibraries(ctx context.Context, e *env, c *serveConfig) error {
	if err := c.checkLibraries(); err != nil {
		return err
	}
	defer c.team.close()
	libs, err := openLibraries(ctx, e, c)
	defer func() {
		for _, l := range libs {
			l.h.close()
		}
	}()
	if err != nil {
		return err
	}
	if err := librariesOptions(ctx, e, c, libs); err != nil {
		return err
	}
	ln, err := listenFirst(&c.o)
	if err != nil {
		return err
	}
	defer ln.Close()
	group, err := librariesServers(ctx, e, c, libs)
	if err != nil {
		return err
	}
	for _, l := range libs {
		defer startLocal(ctx, e, l.st, c.wf, c.bf.of(l.ref.name))()
	}
	printLibraries(e.stdout, libs)
	return group.Serve(ctx, ln)
}

// openLibraries opens every library as serve opens one (openServed): for
// writing unless it cannot be. Those opened come back with the error.
func openLibraries(ctx context.Context, e *env, c *serveConfig) ([]*servedLib, error) {
	var libs []*servedLib
	seen := make(map[string]string)
	for _, r := range c.lf.libs {
		lf := &libFlags{db: absPath(e, expandHome(e, r.path)), coll: c.lf.coll, mapRoom: c.lf.mapRoom, fileOnly: true}
		if other, ok := seen[admin.LibraryPath(lf.db)]; ok {
			return libs, fmt.Errorf("--library %s and --library %s are the same file", other, r.name)
		}
		seen[admin.LibraryPath(lf.db)] = r.name
		readOnly := c.readOnly
		h, err := openServed(ctx, e, lf, c.ef, &readOnly, false, c.fs)
		if h == nil {
			return libs, fmt.Errorf("library %s: %w", r.name, err)
		}
		libs = append(libs, &servedLib{ref: r, h: h, readOnly: readOnly})
		if _, err := h.lib.Summary(ctx); err != nil {
			return libs, failf("library %s summary: %w", r.name, err)
		}
	}
	return libs, nil
}

// librariesOptions gives each library its server options: serve's, under
// "/NAME", with its own link key and secret path, and with --oauth its
// own resource of the one authorization server, whose sign-ins the first
// library keeps.
func librariesOptions(ctx context.Context, e *env, c *serveConfig, libs []*servedLib) error {
	if len(c.origins) > 0 {
		c.o.AllowedOrigins = append(append([]string{}, server.DefaultAllowedOrigins...), c.origins...)
	}
	c.o.Version, c.o.Logger = Version, slog.Default()
	for _, l := range libs {
		l.o = c.o
		l.o.Mount = "/" + l.ref.name
		if err := serveKeys(ctx, l.h, &l.o, c.secret, l.readOnly); err != nil {
			return fmt.Errorf("library %s: %w", l.ref.name, err)
		}
	}
	if err := c.af.check(c.oauth); err != nil || !c.oauth {
		return err
	}
	return librariesOAuth(e, libs, c.af)
}

// librariesOAuth sets up --oauth for several libraries: one authorization
// server, kept in the first library, whose resources are every library's
// /NAME/mcp and /NAME/sse; each library accepts only tokens bound to its
// own (a token for one does not open another).
func librariesOAuth(e *env, libs []*servedLib, af *authFlags) error {
	lead := libs[0]
	if lead.readOnly || lead.h.db == nil {
		return fmt.Errorf("--oauth keeps sign-ins in the first library (%s), which must be a writable file", lead.ref.name)
	}
	base := strings.TrimRight(lead.o.PublicURL, "/")
	var all [][]string
	for _, l := range libs {
		res := []string{base + l.prefix() + "/mcp", base + l.prefix() + "/sse"}
		all = append(all, res)
	}
	a, err := newAuthorizer(e, lead.h.db, &lead.o, concat(all), af)
	if err != nil {
		return err
	}
	for i, l := range libs {
		var r *oauth.Resource
		if r, err = a.Only(all[i]...); err != nil {
			return fmt.Errorf("--oauth: %w", err)
		}
		l.o.Auth = r
	}
	return nil
}

// prefix is where the library's MCP endpoints live: /NAME, then its
// secret path when set.
func (l *servedLib) prefix() string {
	if l.o.SecretPath != "" {
		return l.o.Mount + "/" + l.o.SecretPath
	}
	return l.o.Mount
}

func concat(lists [][]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// librariesServers makes each library's server (its web pages sharing one
// sign-in and a switcher) and the group that serves them.
func librariesServers(ctx context.Context, e *env, c *serveConfig, libs []*servedLib) (*server.Group, error) {
	wg := &webGroup{}
	for _, l := range libs {
		wg.links = append(wg.links, web.LibraryLink{Name: l.ref.name, Base: l.o.Mount, Path: l.h.docs.Path(), MCPPath: l.prefix() + "/mcp"})
	}
	var srvs []*server.Server
	for _, l := range libs {
		l.o.Addr = c.o.Addr
		live := library.NewLive(reranked(l.h.lib, c.ro))
		l.st = &serveState{db: l.h.db, path: l.h.docs.Path(), live: live, emb: l.h.emb, readOnly: l.readOnly,
			holder: "serve", rerank: c.ro, name: l.ref.name, web: wg}
		if err := c.team.apply(e, &l.o, l.st, l.ref.name); err != nil {
			return nil, fmt.Errorf("library %s: %w", l.ref.name, err)
		}
		srv, err := newServer(e, l.st, &l.o, !c.noWeb)
		if err != nil {
			return nil, fmt.Errorf("library %s: %w", l.ref.name, err)
		}
		l.st.stream, l.srv = srv.ServeStream, srv
		srvs = append(srvs, srv)
	}
	for _, l := range libs {
		announceRerank(ctx, e, l.h.docs, l.st.live.Current(), c.ro, l.readOnly)
	}
	return server.NewGroup(srvs...)
}

// printLibraries prints each library's endpoints and web page, then what
// serve prints for one library.
func printLibraries(w io.Writer, libs []*servedLib) {
	fmt.Fprintf(w, "mcpvec %s serving %d libraries, each under its own path (/mcp and /sse name none):\n", Version, len(libs))
	for _, l := range libs {
		fmt.Fprintf(w, "library %s (%s): MCP endpoints (Streamable HTTP, legacy SSE):\n", l.ref.name, l.h.docs.Path())
		urls := l.srv.URLs()
		for _, u := range urls {
			fmt.Fprintf(w, "  %s\n", u)
		}
		if l.o.Web != nil && len(urls) > 0 {
			local := strings.TrimSuffix(strings.TrimSuffix(urls[len(urls)-1], "/sse"), "/mcp") // /mcp: --no-sse
			fmt.Fprintf(w, "  Web page: %s/\n", strings.TrimSuffix(local, "/"+l.o.SecretPath))
		}
	}
	if !libs[0].o.NoSSE {
		fmt.Fprintln(w, server.SSEDeprecation)
	}
	printServeNotes(w, libs[0].o)
}
