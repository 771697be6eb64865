package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/server/telemetry"
	"github.com/mcpvec/mcpvec/store"
)

// serveState is the library a running server holds; commands forwarded over
// the admin channel run against it.
type serveState struct {
	db   *store.DB // nil for a Weaviate library
	path string    // the library file, or the Weaviate collection's address
	live *library.Live
	emb  embed.Embedder
	// readOnly: the library is served read-only; forwarded writes are
	// refused before they start.
	readOnly bool
	// syncMu serialises syncs: forwarded `mcpvec sync` and the watcher.
	syncMu sync.Mutex
	// stream serves the MCP sessions of `serve --stdio` clients handed to
	// this server over the admin channel.
	stream admin.StreamServer
	// holder is how the admin channel names this server to other
	// processes: "serve" or "serve --stdio".
	holder string
	// rerank is the served library's rerank stage, kept across a reindex.
	rerank library.RerankOptions
	// embMu guards emb once serving: a forwarded reindex swaps it while
	// forwarded reads and the watcher use it.
	embMu sync.Mutex
	// tel counts what the server does (/metrics); nil without serve's
	// telemetry.
	tel *telemetry.Telemetry
	// name is the library's --library NAME ("" without one); web links
	// its pages to the other libraries of a serve of several (nil: one).
	name string
	web  *webGroup
	// audit is the library's audit trail; nil when off.
	audit *auditor
}

// embedder returns the served embedder. It is safe for concurrent use.
func (st *serveState) embedder() embed.Embedder {
	st.embMu.Lock()
	defer st.embMu.Unlock()
	return st.emb
}

// setEmbedder replaces the served embedder. It is safe for concurrent use.
func (st *serveState) setEmbedder(emb embed.Embedder) {
	st.embMu.Lock()
	defer st.embMu.Unlock()
	st.emb = emb
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs, lf, ef := embedFlagSet("serve", "[flags] [--watch [FOLDER...]]", e)
	lf.registerCollection(fs, e)
	o, origins := server.Options{}, stringList(nil)
	stdio, secret, readOnly, useOAuth := serveFlags(fs, e, &o, &origins)
	noWeb, wf, rf, bf, tf, af := fs.Bool("no-web", false, "do not serve the web page at /"), registerWatch(fs), registerRerank(fs, e), registerBackups(fs), registerTelemetry(fs, e), registerOIDC(fs, e)
	team := registerTeam(fs, af)
	ro, err := parseServe(fs, args, e, wf, rf)
	if err == nil && e.forwarded != nil {
		err = errors.New("a server is already running on this library")
	}
	if err != nil {
		return err
	}
	if len(lf.libs) > 1 {
		return serveLibraries(ctx, e, &serveConfig{fs: fs, lf: lf, ef: ef, o: o, origins: origins, stdio: *stdio, secret: *secret,
			readOnly: *readOnly, oauth: *useOAuth, noWeb: *noWeb, wf: wf, ro: ro, bf: bf, af: af, team: team})
	}
	h, err := openServed(ctx, e, lf, ef, readOnly, *stdio, fs)
	if h == nil {
		return err
	}
	defer h.close()
	if err := completeOptions(ctx, e, h, &o, origins, *secret, *readOnly, *useOAuth, af); err != nil {
		return err
	}
	// A damaged file shows here, in one line, before NewLive starts the
	// deferred graph load in the background.
	if _, err := h.lib.Summary(ctx); err != nil {
		return failf("library summary: %w", err)
	}
	live := library.NewLive(reranked(h.lib, ro))
	ln, err := listenUnless(*stdio, &o)
	if err != nil {
		return err
	}
	defer ln.Close()
	state := &serveState{db: h.db, path: h.docs.Path(), live: live, emb: h.emb, readOnly: *readOnly, holder: "serve", rerank: ro, name: lf.libName()}
	if *stdio {
		state.holder = "serve --stdio" // a desktop app's, usually: named when it keeps another serve out
	}
	srv, stopTel, err := newServerWith(ctx, e, state, &o, !*stdio && !*noWeb, tf, team)
	if err != nil {
		return err
	}
	defer stopTel()
	defer startLocal(ctx, e, state, wf, bf)()
	announceRerank(ctx, e, h.docs, live.Current(), ro, *readOnly)
	if *stdio {
		slog.Info("serving MCP over stdio", "library", h.docs.Path())
		err = srv.ServeStdio(ctx, e.stdin, e.stdout)
	} else {
		printURLs(e.stdout, srv.URLs(), h.docs.Path(), o)
		err = srv.Serve(ctx, ln)
	}
	if err != nil && !(*stdio && errors.Is(err, context.Canceled)) {
		return err
	}
	return nil
}

// completeOptions fills what serve's flags and the library decide in o:
// the link key and secret path, OAuth, extra allowed origins, version and
// logger.
func completeOptions(ctx context.Context, e *env, h *handle, o *server.Options, origins []string, secret, readOnly, useOAuth bool, af *authFlags) error {
	if err := serveKeys(ctx, h, o, secret, readOnly); err != nil {
		return err
	}
	if err := setupOAuth(e, h, o, af, useOAuth, readOnly); err != nil {
		return err
	}
	if len(origins) > 0 {
		o.AllowedOrigins = append(append([]string{}, server.DefaultAllowedOrigins...), origins...)
	}
	o.Version, o.Logger = Version, slog.Default()
	return nil
}

// startLocal starts what a library file's server runs beside MCP (and the
// scheduled backups, backupsched.go): the
// admin channel for forwarded commands and, with --watch, the folder
// watcher. A Weaviate library needs neither (every process may write to it,
// and sync needs a file), nor the periodic release of the file's mapped
// pages (Live.ReleaseEvery). The returned func stops them.
func startLocal(ctx context.Context, e *env, state *serveState, wf *watchFlags, bf *backupFlags) (stop func()) {
	if state.db == nil {
		if wf.on {
			slog.Error("--watch needs a library file; serving without watching")
		}
		bf.refuse()
		return func() {}
	}
	stopAdmin := listenAdmin(ctx, e, state)
	if state.name != "" {
		unrecord := recordLibraryName(e, state.name, state.db.Path())
		stopAdmin = func(stop func()) func() { return func() { stop(); unrecord() } }(stopAdmin)
	}
	stopWatch := startWatch(ctx, e, state, wf)
	stopBackups := bf.start(ctx, e, state)
	rctx, stopRelease := context.WithCancel(ctx)
	released := make(chan struct{})
	go func() { defer close(released); state.live.ReleaseEvery(rctx, releaseInterval) }()
	return func() { stopBackups(); stopRelease(); <-released; stopWatch(); stopAdmin() }
}

// releaseInterval is how often serve hands the library file's pages that
// searches mapped back to the page cache.
const releaseInterval = time.Minute

// listenFirst listens on o.Addr before the server is made, so the printed
// URLs carry the real port (--addr :0), and records that address in o.
func listenFirst(o *server.Options) (net.Listener, error) {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", o.Addr, err)
	}
	o.Addr = ln.Addr().String()
	return ln, nil
}

// listenUnless is listenFirst unless stdio, when it returns a listener
// that only closes.
func listenUnless(stdio bool, o *server.Options) (net.Listener, error) {
	if stdio {
		return noListener{}, nil
	}
	return listenFirst(o)
}

// noListener is the listener of serve --stdio: it is never served.
type noListener struct{ net.Listener }

func (noListener) Close() error { return nil }

// serveFlags registers serve's own flags into o and origins and returns
// the switches serve reads itself.
func serveFlags(fs *flag.FlagSet, e *env, o *server.Options, origins *stringList) (stdio, secret, readOnly, useOAuth *bool) {
	fs.StringVar(&o.Addr, "addr", server.DefaultAddr, "listen address")
	stdio = fs.Bool("stdio", false, "speak MCP on stdin/stdout (Claude Desktop, Codex) instead of HTTP")
	fs.StringVar(&o.PublicURL, "public-url", e.getenv("MCPVEC_PUBLIC_URL"), "https address of a tunnel (cloudflared, ngrok) in front of this server ($MCPVEC_PUBLIC_URL)")
	fs.StringVar(&o.Token, "token", e.getenv("MCPVEC_TOKEN"), "require Authorization: Bearer TOKEN on MCP endpoints ($MCPVEC_TOKEN)")
	secret = fs.Bool("secret-path", false, "serve MCP only under an unguessable path prefix kept in the library (for ChatGPT connectors)")
	useOAuth = fs.Bool("oauth", false, "let ChatGPT and Claude sign in with OAuth, each sign-in approved by you (needs --public-url; see `mcpvec auth`)")
	fs.BoolVar(&o.InsecureNoAuth, "insecure-no-auth", false, "allow a non-loopback --addr without --token")
	fs.IntVar(&o.MaxResults, "max-results", server.DefaultMaxResults, "search results per call")
	fs.IntVar(&o.MaxFetchChars, "max-fetch-chars", server.DefaultMaxFetchChars, "largest fetch text in characters")
	fs.IntVar(&o.MaxQueryLen, "max-query-len", server.DefaultMaxQueryLen, "longest search query in characters")
	readOnly = fs.Bool("read-only", false, "open the library read-only (a read-only mount): search, fetch and document links work, writes are refused; chosen by itself when the file cannot be opened for writing")
	fs.BoolVar(&o.NoSSE, "no-sse", false, "switch off the legacy HTTP+SSE transport at /sse (deprecated by the MCP spec; clients should use /mcp)")
	fs.BoolVar(&o.ShowPaths, "show-paths", false, "send each document's absolute local path to clients in fetch metadata (default: the file name only)")
	fs.Var(origins, "allow-origin", "extra browser `ORIGIN` allowed to call the MCP endpoints (repeatable; chatgpt.com and claude.ai are allowed)")
	return stdio, secret, readOnly, useOAuth
}

// openServed opens the library for serving: for writing, or read-only with
// readOnly or when the file or its folder cannot be written (a read-only
// mount, a file without write permission). It sets *readOnly to what was
// opened. When a running server holds the library, --stdio hands the
// session to it (proxyStdio) and other modes are refused. A nil handle
// comes with the error to return (nil when the session was proxied).
func openServed(ctx context.Context, e *env, lf *libFlags, ef *embedFlags, readOnly *bool, stdio bool, fs *flag.FlagSet) (*handle, error) {
	h, err := openLibrary(ctx, e, lf, !*readOnly, needSearch)
	if !*readOnly && cannotWrite(err) {
		slog.Warn("the library cannot be opened for writing; serving it read-only (writes are refused)", "err", err)
		*readOnly = true
		h, err = openLibrary(ctx, e, lf, false, needSearch)
	}
	if stdio && errors.Is(err, errBusy) {
		// A writing command holds the library: it refuses writes, but it
		// serves MCP sessions, which only read. Ask it as a reader.
		h, err = openLibrary(ctx, e, lf, false, needSearch)
	}
	var fw *forwardTo
	if errors.As(err, &fw) {
		if stdio { // a server, or a writing command, serves MCP sessions
			return nil, proxyStdio(ctx, e, fw.client, fs)
		}
		if holder, pid := fw.client.Holder(); isWriter(holder) {
			return nil, &busyError{holder: holder, pid: pid}
		}
		path, _ := lf.path(e)
		holder, pid := fw.client.Holder()
		return nil, fmt.Errorf("library %s is already served by `mcpvec %s` (PID %d): stop it first (for `serve --stdio`, quit the app that started it; its sessions go through this server once it runs)", path, holder, pid)
	}
	if err != nil {
		return nil, err
	}
	if *readOnly && h.emb == nil {
		return h, nil // nothing ingested yet: there is no embedder to record
	}
	if err := ensureEmbedder(ctx, e, h, ef); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// cannotWrite reports whether err says the library may not be written.
func cannotWrite(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// serveKeys sets the link key and the secret path from the library,
// creating them in a writable one. A read-only library without a link key
// gets one for this run only (links change on restart); without a secret
// path, --secret-path is refused: a path that changes on every restart
// would break the connector it is given to.
func serveKeys(ctx context.Context, h *handle, o *server.Options, secret, readOnly bool) error {
	var err error
	newKey := func() ([]byte, error) { return randomBytes(32) }
	newPath := func() ([]byte, error) {
		b, err := randomBytes(24)
		return []byte("k-" + base64.RawURLEncoding.EncodeToString(b)), err
	}
	if !readOnly {
		if o.LinkKey, err = h.docs.SettingOrCreate(ctx, "link-key", newKey); err == nil && secret {
			var p []byte
			p, err = h.docs.SettingOrCreate(ctx, "secret-path", newPath)
			o.SecretPath = string(p)
		}
		return err
	}
	if h.db == nil {
		return errors.New("--read-only applies to a library file (--db); a Weaviate library's read access is set in Weaviate")
	}
	if o.LinkKey, err = h.db.Setting("link-key"); errors.Is(err, store.ErrNotFound) {
		slog.Warn("the read-only library has no document-link key: using one for this run only, so links change on restart; run `mcpvec serve` once where the library is writable to keep one")
		o.LinkKey, err = newKey()
	}
	if err != nil || !secret {
		return err
	}
	p, err := h.db.Setting("secret-path")
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("the read-only library has no secret path yet: run `mcpvec serve --secret-path` once where it is writable")
	}
	o.SecretPath = string(p)
	return err
}

// setupOAuth sets up serve --oauth, which keeps its sign-ins in the
// library and so needs it writable.
func setupOAuth(e *env, h *handle, o *server.Options, af *authFlags, on, readOnly bool) error {
	if err := af.check(on); err != nil || !on {
		return err
	}
	if readOnly {
		return errors.New("--oauth keeps sign-ins in the library, which is read-only here: use --token instead")
	}
	if h.db == nil {
		return errOAuthNeedsFile
	}
	a, err := newAuthorizer(e, h.db, o, nil, af)
	if err != nil {
		return err
	}
	o.Auth = a
	return nil
}

func printURLs(w io.Writer, urls []string, path string, o server.Options) {
	if o.NoSSE {
		fmt.Fprintf(w, "mcpvec %s serving %s\nMCP endpoint (Streamable HTTP /mcp; legacy SSE off):\n", Version, path)
	} else {
		fmt.Fprintf(w, "mcpvec %s serving %s\nMCP endpoints (Streamable HTTP /mcp, legacy SSE /sse):\n", Version, path)
	}
	for _, u := range urls {
		fmt.Fprintf(w, "  %s\n", u)
	}
	if !o.NoSSE {
		fmt.Fprintln(w, server.SSEDeprecation)
	}
	printServeNotes(w, o)
	if o.Web != nil && len(urls) > 0 {
		local := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(urls[len(urls)-1], "/"), "/sse"), "/mcp")
		fmt.Fprintf(w, "Web page: %s/\n", strings.TrimSuffix(local, "/"+o.SecretPath))
	}
}

// printServeNotes prints who can use the printed URLs and what they need.
func printServeNotes(w io.Writer, o server.Options) {
	fmt.Fprintln(w, clientsHint(o)+" Ctrl-C stops.")
	if o.Token != "" {
		fmt.Fprintln(w, "Clients must send the header: Authorization: Bearer <your --token>")
	}
	if o.SecretPath != "" {
		fmt.Fprintln(w, "The k-… path is a password: share the URL only with your connector.")
	}
}

// clientsHint says who can use the printed URLs: ChatGPT, Claude's
// connectors and the Responses API run on their makers' servers, so they
// reach only a public URL, and the Responses API sends a fixed header, so
// beside --oauth it needs --token.
func clientsHint(o server.Options) string {
	u, err := url.Parse(o.PublicURL)
	if o.PublicURL == "" || err != nil || isLoopbackHost(u.Hostname()) {
		return "These URLs work on this computer only: ChatGPT, Claude's connectors and the Responses API need a tunnel and --public-url; Claude Desktop, Claude Code and Codex use `mcpvec serve --stdio`."
	}
	if o.Auth != nil && o.Token == "" {
		return "Give the first URL to ChatGPT or Claude (connector, OAuth) or any MCP client; the Responses API needs --token."
	}
	return "Give the first URL to ChatGPT or Claude (connector), the Responses API (server_url) or any MCP client."
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := rand.Read(b)
	return b, err
}

// listenAdmin opens the admin channel for forwarded commands and returns
// what closes it; without it the server still serves, without live updates.
func listenAdmin(ctx context.Context, e *env, st *serveState) (closeFn func()) {
	ac, err := admin.Listen(ctx, adminSocket(e, st.db.Path()), adminRunner(st),
		&admin.Options{Library: st.db.Path(), Logger: slog.Default(), MCP: st.stream, Holder: st.holder,
			Beside: func(args []string) bool { return hostedReads[args[0]] }})
	if err != nil {
		slog.Warn("live updates disabled: admin channel unavailable", "err", err)
		return func() {}
	}
	return func() { ac.Close() }
}

// adminRunner runs forwarded write and read commands against the server's
// library, one at a time (the admin channel serialises them).
func adminRunner(st *serveState) admin.Runner {
	return func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int {
		e := &env{stdin: eofReader{}, stdout: stdout, stderr: stderr, getenv: getenvFn(), cwd: cwd, forwarded: st}
		return dispatch(ctx, args, e)
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
