package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"
)

// Runner runs one mcpvec command (e.g. args = ["ingest","--url-prefix",
// "...","/abs/path"]) in-process, writing its normal output to stdout and
// stderr, and returns its exit status. It must return soon after ctx is
// cancelled and must refuse commands it does not support (args come from any
// process of the same user). stdout and stderr are safe for concurrent use;
// they fail once the Runner has returned or the client is gone.
type Runner func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int

// Options configure Listen; nil means the defaults.
type Options struct {
	// Library is the library file the server holds. When set, requests
	// that name another file are refused (ErrWrongLibrary on the client).
	Library string
	// Logger receives the channel's logs (default slog.Default()).
	Logger *slog.Logger
	// WriteTimeout is how long one write to a client may make no progress
	// before the client is disconnected and its command cancelled
	// (default 10s).
	WriteTimeout time.Duration
	// MCP serves the MCP sessions clients hand over (Client.MCP); nil
	// refuses them with ErrNoMCP.
	MCP StreamServer
	// Holder names the command that holds the library (e.g. "serve",
	// "ingest"); clients read it with Client.Holder to say whom they hand a
	// command to, or why it is refused. "" names none.
	Holder string
	// Beside, when set, names the commands (by their arguments) that need
	// not wait for the others: they take turns among themselves only, so a
	// read is not queued behind a long write. Nil: one turn for all.
	Beside func(args []string) bool
}

const (
	defaultWriteTimeout = 10 * time.Second
	requestTimeout      = 5 * time.Second // reading a request
	maxRequest          = 1 << 20         // bytes in a request body
	// closeGrace is how long Close lets handlers finish beyond one write
	// timeout before it cuts their connections.
	closeGrace = 5 * time.Second
)

// Server is the listening side of the channel. It is safe for concurrent
// use.
type Server struct {
	path         string
	info         fs.FileInfo // the socket file we created
	run          Runner
	mcp          StreamServer
	log          *slog.Logger
	lib          fs.FileInfo // the library held; nil: any
	libPath      string
	holder       string
	writeTimeout time.Duration
	http         *http.Server
	served       chan struct{} // closed when http.Serve returned
	base         context.Context
	cancel       context.CancelFunc
	turn         chan struct{} // holds one token: the right to run a command
	besideTurn   chan struct{} // the same for the commands Options.Beside names
	beside       func(args []string) bool
	wg           sync.WaitGroup
	mu           sync.Mutex
	closed       bool
	cmds         map[string]context.CancelFunc
	once         sync.Once
	closeErr     error
	stopCtx      func() bool
}

// Listen serves the channel on a unix socket at path until ctx is done or
// Close is called. The socket's directory is created with mode 0700 if
// missing and must be private to its owner (else ErrInsecureSocket); the
// socket gets mode 0600. A stale socket left by a killed server is removed
// first; a live one yields ErrInUse; any other file at path is left alone
// and is an error. Commands run one at a time through run. It also fails
// when opts.Library cannot be read.
func Listen(ctx context.Context, path string, run Runner, opts *Options) (*Server, error) {
	if run == nil {
		return nil, errors.New("admin listen: nil runner")
	}
	s, err := newServer(path, run, opts)
	if err != nil {
		return nil, fmt.Errorf("admin listen: %w", err)
	}
	ln, err := s.listen()
	if err != nil {
		return nil, fmt.Errorf("admin listen: %w", err)
	}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("admin serve", "err", err)
		}
	}()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	s.mu.Lock()
	s.stopCtx = stop
	s.mu.Unlock()
	return s, nil
}

func newServer(path string, run Runner, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		path: path, run: run, mcp: o.MCP, log: o.Logger, writeTimeout: o.WriteTimeout, holder: o.Holder,
		served: make(chan struct{}), base: base, cancel: cancel,
		turn: make(chan struct{}, 1), cmds: make(map[string]context.CancelFunc),
		besideTurn: make(chan struct{}, 1), beside: o.Beside,
	}
	s.turn <- struct{}{}
	s.besideTurn <- struct{}{}
	if o.Library != "" {
		fi, err := os.Stat(o.Library)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("library: %w", err)
		}
		s.lib, s.libPath = fi, LibraryPath(o.Library)
	}
	s.http = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: requestTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	s.http.SetKeepAlivesEnabled(false)
	return s, nil
}

// Close stops listening, cancels running and queued commands, waits for
// the running command to return (a queued one is told the server shuts
// down) and removes the socket if it is still ours. Clients get the
// command's final output and status unless they stall. Close is
// idempotent.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		stop := s.stopCtx
		s.mu.Unlock()
		if stop != nil {
			stop()
		}
		s.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), s.writeTimeout+closeGrace)
		if err := s.http.Shutdown(ctx); err != nil {
			s.http.Close()
		}
		cancel()
		<-s.served
		s.wg.Wait() // runners return once they honour their ctx
		if fi, err := os.Lstat(s.path); err == nil && os.SameFile(fi, s.info) {
			if err := os.Remove(s.path); err != nil {
				s.closeErr = fmt.Errorf("admin close: %w", err)
			}
		}
	})
	return s.closeErr
}

// startRunner accounts for a Runner goroutine, or reports false once the
// server is closing.
func (s *Server) startRunner() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

// register makes a command cancellable by id; the returned func forgets it.
func (s *Server) register(cancel context.CancelFunc) (id string, forget func()) {
	b := make([]byte, 12)
	rand.Read(b)
	id = hex.EncodeToString(b)
	s.mu.Lock()
	s.cmds[id] = cancel
	s.mu.Unlock()
	return id, func() {
		s.mu.Lock()
		delete(s.cmds, id)
		s.mu.Unlock()
	}
}

// cancelCommand cancels the command id and reports whether it was known.
func (s *Server) cancelCommand(id string) bool {
	s.mu.Lock()
	cancel, ok := s.cmds[id]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// checkLibrary refuses a request naming a file other than the server's
// library.
func (s *Server) checkLibrary(name string) error {
	if s.lib == nil {
		return nil
	}
	if name == "" {
		return fmt.Errorf("%w: serving %s, the request names none", ErrWrongLibrary, s.libPath)
	}
	if fi, err := os.Stat(name); err != nil || !os.SameFile(fi, s.lib) {
		return fmt.Errorf("%w: serving %s, asked for %s", ErrWrongLibrary, s.libPath, name)
	}
	return nil
}
