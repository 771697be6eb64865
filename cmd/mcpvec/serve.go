package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

// serveState is the library a running server holds; commands forwarded over
// the admin channel run against it.
type serveState struct {
	db   *store.DB
	live *library.Live
	emb  embed.Embedder
}

func runServe(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("serve", "[flags]", e)
	var lf libFlags
	var ef embedFlags
	lf.register(fs)
	ef.register(fs, e)
	var o server.Options
	fs.StringVar(&o.Addr, "addr", server.DefaultAddr, "listen address")
	stdio := fs.Bool("stdio", false, "speak MCP on stdin/stdout (Claude Desktop, Codex) instead of HTTP")
	fs.StringVar(&o.PublicURL, "public-url", e.getenv("MCPVEC_PUBLIC_URL"), "https address of a tunnel (cloudflared, ngrok) in front of this server ($MCPVEC_PUBLIC_URL)")
	fs.StringVar(&o.Token, "token", e.getenv("MCPVEC_TOKEN"), "require Authorization: Bearer TOKEN on MCP endpoints ($MCPVEC_TOKEN)")
	secret := fs.Bool("secret-path", false, "serve MCP only under an unguessable path prefix kept in the library (for ChatGPT connectors)")
	useOAuth := fs.Bool("oauth", false, "let ChatGPT and Claude sign in with OAuth, each sign-in approved by you (needs --public-url; see `mcpvec auth`)")
	noWeb := fs.Bool("no-web", false, "do not serve the web interface at /")
	fs.BoolVar(&o.InsecureNoAuth, "insecure-no-auth", false, "allow a non-loopback --addr without --token")
	fs.IntVar(&o.MaxResults, "max-results", server.DefaultMaxResults, "search results per call")
	fs.IntVar(&o.MaxFetchChars, "max-fetch-chars", server.DefaultMaxFetchChars, "largest fetch text in characters")
	fs.IntVar(&o.MaxQueryLen, "max-query-len", server.DefaultMaxQueryLen, "longest search query in characters")
	var origins stringList
	fs.Var(&origins, "allow-origin", "extra browser origin allowed to call the MCP endpoints (repeatable; chatgpt.com and claude.ai are allowed)")
	if _, st, ok := parseFlags(fs, args, e); !ok {
		return st
	}
	if e.forwarded != nil {
		return errorf(e, "a server is already running on this library")
	}
	h, err := openLibrary(ctx, e, &lf, true, true)
	if errors.Is(err, errForward) {
		path, _ := lf.path(e)
		return errorf(e, "library %s is already served by another mcpvec serve", path)
	}
	if err != nil {
		return errorf(e, "%v", err)
	}
	defer h.close()
	if err := ensureEmbedder(ctx, e, h, &ef); err != nil {
		return errorf(e, "%v", err)
	}
	if o.LinkKey, err = h.db.SettingOrCreate("link-key", func() ([]byte, error) { return randomBytes(32) }); err != nil {
		return errorf(e, "%v", err)
	}
	if *secret {
		p, err := h.db.SettingOrCreate("secret-path", func() ([]byte, error) {
			b, err := randomBytes(24)
			return []byte("k-" + base64.RawURLEncoding.EncodeToString(b)), err
		})
		if err != nil {
			return errorf(e, "%v", err)
		}
		o.SecretPath = string(p)
	}
	if *useOAuth {
		if o.Auth, err = newAuthorizer(e, h.db, &o); err != nil {
			return errorf(e, "%v", err)
		}
	}
	if len(origins) > 0 {
		o.AllowedOrigins = append(append([]string{}, server.DefaultAllowedOrigins...), origins...)
	}
	o.Version = Version
	o.Logger = slog.Default()
	live := library.NewLive(h.lib)
	var ln net.Listener
	if !*stdio {
		// Listen first so the printed URLs carry the real port (--addr :0).
		if ln, err = net.Listen("tcp", o.Addr); err != nil {
			return errorf(e, "listen %s: %v", o.Addr, err)
		}
		defer ln.Close()
		o.Addr = ln.Addr().String()
	}
	state := &serveState{db: h.db, live: live, emb: h.emb}
	var ws *webSetup
	if !*stdio && !*noWeb {
		if ws, err = newWeb(e, state, &o); err != nil {
			return errorf(e, "%v", err)
		}
	}
	srv, err := server.New(live, o)
	if err != nil {
		return errorf(e, "%v", err)
	}
	if ws != nil {
		ws.srv = srv
	}
	ac, err := admin.Listen(ctx, adminSocket(e, h.db.Path()), adminRunner(state), &admin.Options{Library: h.db.Path(), Logger: slog.Default()})
	if err != nil {
		slog.Warn("live updates disabled: admin channel unavailable", "err", err)
	} else {
		defer ac.Close()
	}
	if *stdio {
		slog.Info("serving MCP over stdio", "library", h.db.Path())
		if err := srv.ServeStdio(ctx, e.stdin, e.stdout); err != nil && !errors.Is(err, context.Canceled) {
			return errorf(e, "%v", err)
		}
		return 0
	}
	printURLs(e.stdout, srv.URLs(), h.db.Path())
	if ws != nil {
		fmt.Fprintf(e.stdout, "Web interface: %s/\n", strings.TrimSuffix(srv.URLs()[len(srv.URLs())-1], srv.SecretPrefix()+"/sse"))
	}
	if o.Token != "" {
		fmt.Fprintln(e.stdout, "Clients must send the header: Authorization: Bearer <your --token>")
	}
	if o.SecretPath != "" {
		fmt.Fprintln(e.stdout, "The k-… path is a password: share the URL only with your connector.")
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return errorf(e, "%v", err)
	}
	return 0
}

func printURLs(w io.Writer, urls []string, path string) {
	fmt.Fprintf(w, "mcpvec %s serving %s\nMCP endpoints (Streamable HTTP /mcp, legacy SSE /sse):\n", Version, path)
	for _, u := range urls {
		fmt.Fprintf(w, "  %s\n", u)
	}
	fmt.Fprintln(w, "Give the first URL to ChatGPT (connector), the Responses API (server_url) or any MCP client. Ctrl-C stops.")
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := rand.Read(b)
	return b, err
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
