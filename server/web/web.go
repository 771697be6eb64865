package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/internal/client"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// File is one uploaded file, received into a temporary file that the
// handler removes once Options.Ingest returns (SaveUploads moves it).
type File struct {
	Name string // base name as the browser sent it
	Path string // the temporary file holding its bytes
}

// Options configures a Handler. Library and Link are required.
type Options struct {
	// Library is the live library every page reads and deletes through.
	Library *library.Live
	// Link returns the signed citation link to page (0: none) of a
	// document, or to anchor of its text view when page is 0 and anchor is
	// set, based at the address r reached the server at; wire it to
	// server.Server.DocURL so pages show the links MCP clients get.
	Link func(r *http.Request, docID string, page int, anchor string) string
	// Ingest runs uploaded files through the ingest pipeline into Library
	// and returns what became of each (UploadOutcome tells); its error is
	// for the upload as a whole. nil disables uploads.
	Ingest func(ctx context.Context, files []File) ([]Upload, error)
	// Roots lists the folders `mcpvec sync` remembers, and Resync syncs one
	// of them into Library and returns a one-line summary; nil hides them.
	Roots  func() ([]string, error)
	Resync func(ctx context.Context, root string) (string, error)
	// Removed, when set, is told of each document removed through the
	// page (for the audit trail), with the request's context and how many
	// passages went. That context, and Ingest's, carries the person who
	// signed in at the provider (identity.FromContext), none for the owner.
	Removed func(ctx context.Context, id string, passages int)
	// ReadOnly turns off uploads and deletes (a read-only library).
	ReadOnly bool
	// MCPPath is the path of the streamable HTTP endpoint ("/mcp", or under
	// the secret path); "" means "/mcp".
	MCPPath string
	// PublicURL is the server's public base ("" when not exposed).
	PublicURL string
	// Exposed requires the owner to sign in (PublicURL set or a
	// non-loopback listen address). New also requires it whenever Token or
	// CheckOwner is set: the pages are then behind the same credential as
	// /mcp, and open only on an open loopback server.
	Exposed bool
	// Token is the static bearer token ("" when none). It signs the owner
	// in and authorises the connection test.
	Token string
	// CheckOwner checks the owner passphrase (server/oauth's VerifyOwner);
	// nil when there is no OAuth server.
	CheckOwner func(r *http.Request, pass string) error
	// Command is the mcpvec binary's absolute path, which the Connect
	// page's stdio snippets launch ("" shows "mcpvec"); Addr is the
	// listen address, for the commands it shows ("" uses the request's
	// Host).
	Command, Addr string
	// LibraryPath, Embedder and Version describe the library on its page.
	LibraryPath, Embedder, Version string
	// MaxResults and MaxQueryLen are the MCP search tool's limits
	// (0: the library's defaults).
	MaxResults, MaxQueryLen int
	// MaxUpload caps an upload request in bytes (default 256 MiB).
	MaxUpload int64
	// UploadDir is where uploads are received before Ingest ("": the
	// system's temporary folder); the same file system as where Ingest
	// keeps them lets SaveUploads rename rather than copy.
	UploadDir string
	// BodyTimeout bounds the reading of a form body, and of an upload
	// once its sender is known (then plus the time to send the rest at
	// 128 KiB/s); 0 means 30 seconds.
	BodyTimeout time.Duration
	// Activity is the ring of MCP calls shown on the activity page; nil
	// shows none.
	Activity *Activity
	// Logger receives errors; nil means slog.Default().
	Logger *slog.Logger
	// Base is "" or the path the handler is served under when the server
	// serves several libraries ("/papers", stripped before the handler
	// sees a request); its links and redirects carry it.
	Base string
	// Libraries are the libraries of the server, for the switcher in the
	// header (shown when there are two or more); Base picks this one.
	Libraries []LibraryLink
	// Share, when set, is another library's Handler of the same server
	// whose sessions this one uses: one sign-in opens every library.
	Share *Handler
	// SignIn, when set, is the team's OpenID provider: the sign-in page
	// offers "Sign in with SignInName" beside the owner's passphrase, and
	// its redirect URI is PublicURL (else the request's origin) plus
	// CallbackPath. With a Share, the shared Handler's own SignIn answers
	// the callback.
	SignIn     SignIn
	SignInName string
	// Policy decides what a person the provider signed in may do in the
	// library called Name (and which libraries of Libraries the switcher
	// lists); nil allows a person nothing. The owner holds every right.
	Policy identity.Policy
	Name   string
	// Audit, when set, is the audit trail the activity page shows: a
	// person their own entries, the owner everyone's (?user= filters).
	Audit AuditLog
}

// CallbackPath is where the OpenID provider sends a person back, on the
// server's root whichever library they signed in from: register
// PUBLIC_URL + CallbackPath as the client's redirect URI.
const CallbackPath = "/ui/signin/callback"

// SignIn is an OpenID provider as the web page uses it (server/oidc's
// relying party fits). Implementations must be safe for concurrent use.
type SignIn interface {
	// AuthURL is where to send the browser to sign in: the provider's
	// authorization endpoint with state, the nonce the ID token must
	// carry, the PKCE challenge of verifier and redirectURI.
	AuthURL(state, nonce, verifier, redirectURI string) string
	// Exchange redeems the code the provider sent back for the person it
	// signed in, checking the ID token (signature, issuer, audience,
	// expiry, nonce); any error means nobody is signed in.
	Exchange(ctx context.Context, code, verifier, nonce, redirectURI string) (identity.Person, error)
}

// LibraryLink is one library of a server: its name, its pages' Base, its
// file (for the Connect page's commands) and its MCPPath.
type LibraryLink struct{ Name, Base, Path, MCPPath string }

// ErrBadOption is returned by New for missing required Options.
var ErrBadOption = errors.New("web: invalid option")

// Handler serves the web interface. It is safe for concurrent use.
type Handler struct {
	opts     Options
	log      *slog.Logger
	pages    map[string]*template.Template
	mux      *http.ServeMux
	sessions *sessions
	limiter  *limiter
	uploads  *client.Gate
	lists    listCache // the library page's rows (listcache.go)
}

// New builds a Handler; it returns an error wrapping ErrBadOption when
// Library or Link is nil, or a template error.
func New(opts Options) (*Handler, error) {
	if opts.Library == nil || opts.Link == nil {
		return nil, fmt.Errorf("%w: Library and Link are required", ErrBadOption)
	}
	if opts.ReadOnly {
		opts.Ingest, opts.Resync = nil, nil
	}
	if opts.MCPPath == "" {
		opts.MCPPath = "/mcp"
	}
	if opts.MaxResults <= 0 {
		opts.MaxResults = 10
	}
	if opts.MaxUpload <= 0 {
		opts.MaxUpload = 256 << 20
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Exposed = opts.Exposed || opts.Token != "" || opts.CheckOwner != nil
	h := &Handler{opts: opts, log: opts.Logger, sessions: newSessions(),
		limiter: newLimiter(5, 100, time.Minute), uploads: client.NewGate(uploadsPerClient, uploadsInAll)}
	if opts.Share != nil {
		h.sessions, h.limiter = opts.Share.sessions, opts.Share.limiter
	}
	if err := h.parseTemplates(); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func (h *Handler) parseTemplates() error {
	names := []string{"library", "document", "search", "add", "connect", "activity", "signin", "message"}
	h.pages = map[string]*template.Template{}
	for _, n := range names {
		t, err := template.New(n).Funcs(funcs).Funcs(h.baseFuncs()).ParseFS(templateFS, "templates/layout.html", "templates/"+n+".html")
		if err != nil {
			return fmt.Errorf("template %s: %w", n, err)
		}
		h.pages[n] = t
	}
	return nil
}

func (h *Handler) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /ui/signin", h.signinPage)
	m.HandleFunc("POST /ui/signin", h.signin)
	m.HandleFunc("GET /ui/signin/start", h.signinStart)
	m.HandleFunc("GET /ui/signin/callback", h.signinCallback)
	m.HandleFunc("POST /ui/signout", h.signedIn(h.signout))
	read, write := h.readPage, h.writePage
	m.HandleFunc("GET /{$}", read(h.libraryPage))
	m.HandleFunc("GET /ui/doc/{id}", read(h.documentPage))
	m.HandleFunc("GET /ui/search", read(h.searchPage))
	m.HandleFunc("GET /ui/add", write(h.addPage))
	m.HandleFunc("POST /ui/upload", write(h.upload))
	m.HandleFunc("POST /ui/delete", write(h.delete))
	m.HandleFunc("POST /ui/resync", write(h.resync))
	m.HandleFunc("GET /ui/connect", h.owner(h.connectPage))
	m.HandleFunc("POST /ui/connect/test", h.owner(h.connectTest))
	m.HandleFunc("GET /ui/activity", h.signedIn(h.activityPage))
	h.mux = m
}

// ServeHTTP sets the security headers, attaches the session (an anonymous
// one when missing), admits POSTs (see admit) and routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	sess := h.sessions.get(w, r)
	ctx := context.WithValue(r.Context(), sessionKey{}, sess)
	if !sess.person.IsZero() { // who uploads and removes, for Ingest and Removed (the audit trail)
		ctx = identity.NewContext(ctx, sess.person)
	}
	r = r.WithContext(ctx)
	if r.Method == http.MethodPost {
		// Lifted once the body is read (admit, receive): left on, it would
		// cancel a long answer (net/http's background read times out).
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
		if !h.admit(w, r, sess) {
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// page is what every template sees.
type page struct {
	Title   string
	Nav     string
	CSRF    string
	Owner   bool // signed in (the owner or a person), or not exposed
	Exposed bool
	Data    any
	// IsOwner: the owner's pages (Connect); Write: the Add page; User:
	// the person signed in ("" for the owner).
	IsOwner, Write bool
	User           string
	// Refresh, when set, sends the browser on to this path of the site
	// (a meta refresh: see signinCallback).
	Refresh string
	// Libraries is the switcher (nil with one library); Base is this one's.
	Libraries []LibraryLink
	Base      string
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	sess := sessionOf(r)
	p := page{Title: title, Nav: name, CSRF: sess.csrf, Owner: !h.opts.Exposed || sess.signedIn(), Exposed: h.opts.Exposed, Data: data, Base: h.opts.Base,
		IsOwner: !h.opts.Exposed || sess.isOwner(), Write: h.may(r, identity.Write), User: sess.person.Label()}
	if sess.person.IsZero() {
		p.User = ""
	}
	if libs := h.visible(r); len(libs) > 1 {
		p.Libraries = libs
	}
	if m, ok := data.(messageData); ok {
		p.Refresh = m.Refresh
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		h.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// messageData is the message page's: a heading, a sentence and, when
// Refresh is set, where the browser goes next.
type messageData struct{ Heading, Text, Refresh string }

// message renders a short page with a heading and a sentence.
func (h *Handler) message(w http.ResponseWriter, r *http.Request, status int, title, text string) {
	h.render(w, r, status, "message", title, messageData{Heading: title, Text: text})
}
