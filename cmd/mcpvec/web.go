package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/mcpvec/mcpvec/ingest"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/web"
	"github.com/mcpvec/mcpvec/store"
)

// webSetup is the web interface of a serve, built before the server (which
// mounts it) and told the server once it exists (for signed links).
type webSetup struct {
	handler http.Handler
	srv     *server.Server
}

// newServer makes the server for st, with the web page when withWeb.
func newServer(e *env, st *serveState, o *server.Options, withWeb bool) (*server.Server, error) {
	var ws *webSetup
	if withWeb {
		var err error
		if ws, err = newWeb(e, st, o); err != nil {
			return nil, err
		}
	}
	srv, err := server.New(st.live, *o)
	if err != nil {
		return nil, err
	}
	if ws != nil {
		ws.srv = srv
	}
	return srv, nil
}

// newWeb builds the web interface for a server with options o on st's
// library and records tool calls for its activity page. Uploads run the
// CLI's ingest command inside the server, as forwarded commands do.
func newWeb(e *env, st *serveState, o *server.Options) (*webSetup, error) {
	ws := &webSetup{}
	act := web.NewActivity(200)
	o.Observe = chainObserve(act.Record, o.Observe)
	host, _, _ := net.SplitHostPort(o.Addr)
	ip := net.ParseIP(host)
	// Token, Auth and CheckOwner require sign-in too: the page is behind the
	// same credential as /mcp (see web.Options.Exposed).
	wo := web.Options{
		Library: st.live,
		Link: func(r *http.Request, id string, page int, anchor string) string {
			return ws.srv.DocURL(r, id, page, anchor)
		},
		ReadOnly:    st.readOnly,
		MCPPath:     "/mcp",
		PublicURL:   o.PublicURL,
		Exposed:     o.PublicURL != "" || o.Auth != nil || !(host == "localhost" || (ip != nil && ip.IsLoopback())),
		BodyTimeout: o.BodyTimeout,
		Token:       o.Token,
		LibraryPath: st.path,
		Command:     executable(),
		Addr:        o.Addr,
		Version:     o.Version,
		MaxResults:  o.MaxResults,
		MaxQueryLen: o.MaxQueryLen,
		Activity:    act,
		Logger:      slog.Default(),
	}
	if wo.MCPPath = o.Mount + "/mcp"; o.SecretPath != "" {
		wo.MCPPath = o.Mount + "/" + o.SecretPath + "/mcp"
	}
	st.web.join(&wo, o.Mount)
	wo.Removed = st.auditRemoval
	if st.db != nil { // uploads and sync roots live beside a library file
		wo.Ingest, wo.Resync = uploadIngest(e, st), resync(e, st)
		wo.UploadDir = uploadDir(st) // received there, then renamed in place
		wo.Roots = func() ([]string, error) { return rootPaths(st) }
	}
	if st.emb != nil {
		wo.Embedder = st.emb.Identity().String()
	}
	if a, ok := o.Auth.(interface {
		VerifyOwner(*http.Request, string) error
	}); ok { // *oauth.Server, or one library's *oauth.Resource
		wo.CheckOwner = a.VerifyOwner
	}
	teamWeb(&wo, st, o)
	h, err := web.New(wo)
	if err != nil {
		return nil, fmt.Errorf("web interface: %w", err)
	}
	st.web.joined(h)
	ws.handler = h
	o.Web = h
	return ws, nil
}

// webGroup links the web pages of a serve of several libraries: the
// switcher, and one sign-in (the first library's sessions) for all. A nil
// *webGroup is one library's.
type webGroup struct {
	links []web.LibraryLink
	first *web.Handler
}

// join sets the options of the pages of the library under mount.
func (g *webGroup) join(wo *web.Options, mount string) {
	if g != nil {
		wo.Base, wo.Libraries, wo.Share = mount, g.links, g.first
	}
}

// joined records h, the first library's pages: the others share its
// sessions.
func (g *webGroup) joined(h *web.Handler) {
	if g != nil && g.first == nil {
		g.first = h
	}
}

// rootPaths lists the folders `mcpvec sync` remembers.
func rootPaths(st *serveState) ([]string, error) {
	roots, err := isync.LoadRoots(st.db)
	var out []string
	for _, r := range roots {
		out = append(out, r.Path)
	}
	return out, err
}

// resync runs `mcpvec sync ROOT` against the served library, as a
// forwarded sync does; the web handler passes only remembered roots.
func resync(e *env, st *serveState) func(ctx context.Context, root string) (string, error) {
	return func(ctx context.Context, root string) (string, error) {
		return runInServer(ctx, e, st, root, []string{"sync", root})
	}
}

// uploadIngest saves uploads beside the library, in "<library>.uploads/"
// (never replacing an earlier upload: see web.SaveUploads), runs
// `mcpvec ingest` on them against the served library and tells what became
// of each file. Uploads run one at a time.
func uploadIngest(e *env, st *serveState) func(ctx context.Context, files []web.File) ([]web.Upload, error) {
	var mu sync.Mutex
	return func(ctx context.Context, files []web.File) ([]web.Upload, error) {
		mu.Lock()
		defer mu.Unlock()
		dir := uploadDir(st)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("upload folder: %w", err)
		}
		saved, err := web.SaveUploads(dir, files)
		if err != nil {
			return nil, err
		}
		args := []string{"ingest"}
		ids := make([]string, len(saved))
		before := make([]*store.Document, len(saved))
		for i, sv := range saved {
			ids[i] = contentID(sv.Path)
			before[i], _ = st.db.DocumentByPath(sv.Path)
			args = append(args, sv.Path)
		}
		_, err = runInServer(ctx, e, st, dir, args)
		report := ""
		if err != nil {
			report = err.Error()
		}
		out := make([]web.Upload, len(saved))
		for i, sv := range saved {
			why := reportedReason(report, sv.Path)
			if why == "" && err != nil {
				why, _, _ = strings.Cut(err.Error(), "\n")
			}
			out[i] = web.UploadOutcome(st.db, sv.Name, sv.Path, ids[i], before[i], why)
			out[i].Note = sv.Note
		}
		st.auditUploads(ctx, out)
		return out, nil
	}
}

// contentID is the document id the file at path would get ("" when it
// cannot be read: the ingest then reports why).
func contentID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sha, err := ingest.ContentHash(f)
	if err != nil {
		return ""
	}
	return sha[:16]
}

// reportedReason finds why ingest's report ("failed PATH: why" or
// "skipped PATH: why", a line each) says path was not ingested, or "".
func reportedReason(report, path string) string {
	for _, line := range strings.Split(report, "\n") {
		for _, verb := range []string{"failed ", "skipped "} {
			if i := strings.Index(line, verb+path+": "); i >= 0 {
				return strings.TrimSpace(line[i+len(verb+path+": "):])
			}
		}
	}
	return ""
}

// uploadDir is where uploads are kept, beside the library file.
func uploadDir(st *serveState) string { return st.db.Path() + ".uploads" }

// runInServer runs the CLI command args in the server of st, as a
// forwarded command runs, in the folder cwd, and returns its output; a
// non-zero exit is an error carrying what it wrote to stderr.
func runInServer(ctx context.Context, e *env, st *serveState, cwd string, args []string) (string, error) {
	var out, errs bytes.Buffer
	fe := &env{stdin: eofReader{}, stdout: &out, stderr: &errs, getenv: e.getenv, cwd: cwd, forwarded: st}
	if code := dispatch(ctx, args, fe); code != 0 {
		return strings.TrimSpace(out.String()), fmt.Errorf("%s: %s", args[0], strings.TrimSpace(errs.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
