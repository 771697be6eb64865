package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"
)

// Runner runs one mcpvec write command (e.g. args = ["ingest","--url-prefix",
// "...","/abs/path"]) in-process, writing its normal output to stdout and
// stderr, and returns its exit status. It must return soon after ctx is
// cancelled and must refuse commands it does not support (args come from any
// process of the same user). stdout and stderr are safe for concurrent use
// and fail once the Runner has returned.
type Runner func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int

// Errors returned by ListenAdmin and CallAdmin; callers branch on them with
// errors.Is.
var (
	// ErrNoAdmin means no server listens on the admin socket (no socket file,
	// or a stale one left by a killed server).
	ErrNoAdmin = errors.New("no mcpvec server is listening on the admin socket")
	// ErrAdminInUse means another live server already listens on the socket.
	ErrAdminInUse = errors.New("admin socket is in use by another server")
	// ErrInsecureSocketDir means the socket's directory is not a real
	// directory private to its owner (mode 0700), so other users could
	// reach or replace the socket.
	ErrInsecureSocketDir = errors.New("admin socket directory is not private")
	// ErrAdminProtocol means the other side broke the admin protocol: a
	// malformed frame, a rejected request, or a stream that ended without an
	// exit status.
	ErrAdminProtocol = errors.New("admin protocol error")
)

// Exit statuses the admin channel itself reports.
const (
	// ExitAdminPanic is the status reported when the Runner panicked.
	ExitAdminPanic = 70
	// ExitAdminUnknown is what CallAdmin returns when no status arrived.
	ExitAdminUnknown = -1
)

const (
	adminProtocolVersion = 1
	maxAdminRequest      = 1 << 20  // bytes in one client line
	maxAdminFrame        = 1 << 22  // bytes in one server line
	adminChunk           = 32 << 10 // output bytes per frame
	adminRequestTimeout  = 5 * time.Second
	// adminCancelGrace is how long CallAdmin keeps reading after ctx is
	// cancelled, so the remote command can report how it stopped.
	adminCancelGrace = 5 * time.Second
	// closeWriteGrace bounds writes to clients once Close was called.
	closeWriteGrace = 2 * time.Second
	// sunPathMax is the smallest sun_path among the unix systems we run on
	// (macOS and the BSDs: 104 bytes including the NUL).
	sunPathMax = 103
)

// adminRequest is a client line: the first one carries the command, a later
// one with Cancel set asks the server to cancel it.
type adminRequest struct {
	V      int      `json:"v,omitempty"`
	Args   []string `json:"args,omitempty"`
	Cwd    string   `json:"cwd,omitempty"`
	Cancel bool     `json:"cancel,omitempty"`
}

// adminFrame is a server line: output ({stream,data}), the final exit status
// ({exit}) or a refused request ({error}). Data is base64 in JSON, so output
// need not be UTF-8.
type adminFrame struct {
	Stream string `json:"stream,omitempty"`
	Data   []byte `json:"data,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
	Error  string `json:"error,omitempty"`
}

// AdminSocketPath returns where the server for the library at dbPath listens:
// $XDG_RUNTIME_DIR/mcpvec-<hash>.sock; else /run/user/<uid>/mcpvec-<hash>.sock
// when that directory exists (it is what XDG_RUNTIME_DIR normally is, so a
// CLI run from cron or sudo -u without the variable still finds a server
// started in a desktop session); else <tmp>/mcpvec-<uid>/<hash>.sock. hash is
// taken from the absolute, symlink-resolved dbPath. The result fits in
// sun_path on Linux and macOS. It is safe for concurrent use.
func AdminSocketPath(dbPath string) string {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		abs = filepath.Clean(dbPath)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	sum := sha256.Sum256([]byte(abs))
	hash := hex.EncodeToString(sum[:8])
	name := "mcpvec-" + hash + ".sock"
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		if p := filepath.Join(dir, name); len(p) <= sunPathMax {
			return p
		}
	}
	if runtime.GOOS == "linux" {
		dir := fmt.Sprintf("/run/user/%d", os.Getuid())
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return filepath.Join(dir, name)
		}
	}
	sub := fmt.Sprintf("mcpvec-%d", os.Getuid())
	if p := filepath.Join(os.TempDir(), sub, hash+".sock"); len(p) <= sunPathMax {
		return p
	}
	return filepath.Join("/tmp", sub, hash+".sock")
}

// ListenAdmin serves the admin channel on a unix socket at path until ctx is
// done or the returned Closer is closed. The socket's directory is created
// with mode 0700 if missing and must be private to its owner (else
// ErrInsecureSocketDir); the socket gets mode 0600, so only the same user can
// connect. A stale socket left by a killed server is replaced; a live one
// yields ErrAdminInUse. Commands run one at a time through run, in arrival
// order as the lock allows; a caller that disconnects or sends cancel has its
// command's ctx cancelled. Close stops listening, cancels the running command,
// waits for it to return and removes the socket (only if it is still ours).
// The Closer is safe for concurrent use and Close is idempotent.
func ListenAdmin(ctx context.Context, path string, run Runner, logger *slog.Logger) (io.Closer, error) {
	if run == nil {
		return nil, errors.New("listen admin: nil runner")
	}
	if logger == nil {
		logger = slog.Default()
	}
	if err := ensurePrivateSocketDir(filepath.Dir(path), true); err != nil {
		return nil, fmt.Errorf("listen admin: %w", err)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, fmt.Errorf("listen admin: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen admin %q: %w", path, err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // we unlink only if the file is still ours
	if err := os.Chmod(path, 0o600); err != nil {
		ul.Close()
		return nil, fmt.Errorf("listen admin: chmod socket: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		ul.Close()
		return nil, fmt.Errorf("listen admin: stat socket: %w", err)
	}
	a := newAdminServer(ul, path, fi, run, logger)
	go a.acceptLoop()
	stop := context.AfterFunc(ctx, func() { a.Close() })
	a.mu.Lock()
	a.stopCtx = stop
	a.mu.Unlock()
	return a, nil
}

// ensurePrivateSocketDir checks that dir is a directory (not a symlink) owned
// by this user with no group or other permission bits, creating it with 0700
// when create is set.
func ensurePrivateSocketDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("socket dir: %w", err)
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrInsecureSocketDir, dir)
	}
	// Windows reports no meaningful permission bits; there the socket
	// directory is private through its ACLs instead.
	if runtime.GOOS == "windows" {
		return nil
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %v, want 0700", ErrInsecureSocketDir, dir, fi.Mode().Perm())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrInsecureSocketDir, dir, uid, os.Getuid())
	}
	return nil
}

// fileOwner returns the owner's uid from the platform's stat structure.
// Every unix syscall.Stat_t has a Uid field, but its type is not the same
// type across platforms, so it is read by reflection to keep this file
// portable without build tags.
func fileOwner(fi fs.FileInfo) (int, bool) {
	v := reflect.ValueOf(fi.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("Uid")
	if !f.IsValid() || !f.CanUint() {
		return 0, false
	}
	return int(f.Uint()), true
}

// removeStaleSocket removes path if it is a socket nobody listens on. It
// refuses to touch anything that is not a socket.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat socket: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: %s", ErrAdminInUse, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("probe socket: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// adminServer is the listening side of the admin channel.
type adminServer struct {
	ln      *net.UnixListener
	path    string
	info    fs.FileInfo // the socket file we created
	run     Runner
	log     *slog.Logger
	base    context.Context
	cancel  context.CancelFunc
	turn    chan struct{} // holds one token: the right to run a command
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	once    sync.Once
	stopCtx func() bool
}

func newAdminServer(ln *net.UnixListener, path string, fi fs.FileInfo, run Runner, logger *slog.Logger) *adminServer {
	base, cancel := context.WithCancel(context.Background())
	a := &adminServer{
		ln: ln, path: path, info: fi, run: run, log: logger,
		base: base, cancel: cancel,
		turn:  make(chan struct{}, 1),
		conns: make(map[net.Conn]struct{}),
	}
	a.turn <- struct{}{}
	return a
}

// Close implements io.Closer; see ListenAdmin.
func (a *adminServer) Close() error {
	var err error
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		stop := a.stopCtx
		// A client that stopped reading must not block shutdown forever.
		for c := range a.conns {
			c.SetWriteDeadline(time.Now().Add(closeWriteGrace))
		}
		a.mu.Unlock()
		if stop != nil {
			stop()
		}
		err = a.ln.Close()
		a.cancel()
		a.wg.Wait() // handlers return once their command has
		if fi, serr := os.Lstat(a.path); serr == nil && os.SameFile(fi, a.info) {
			if rerr := os.Remove(a.path); rerr != nil && err == nil {
				err = rerr
			}
		}
		if err != nil {
			err = fmt.Errorf("close admin: %w", err)
		}
	})
	return err
}

func (a *adminServer) acceptLoop() {
	for {
		c, err := a.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			a.log.Error("admin accept", "err", err)
			time.Sleep(50 * time.Millisecond) // e.g. EMFILE; don't spin
			continue
		}
		if !a.track(c) {
			c.Close()
			return
		}
		go a.handle(c)
	}
}

// track registers c, or reports false once the server is closing.
func (a *adminServer) track(c net.Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.conns[c] = struct{}{}
	a.wg.Add(1)
	return true
}

func (a *adminServer) untrack(c net.Conn) {
	a.mu.Lock()
	delete(a.conns, c)
	a.mu.Unlock()
	c.Close()
	a.wg.Done()
}

// handle serves one connection: read the request, wait for the turn, run,
// report the exit status.
func (a *adminServer) handle(c net.Conn) {
	defer a.untrack(c)
	fw := &adminFrameWriter{conn: c}
	br := bufio.NewReaderSize(c, 4096)
	req, err := readAdminRequest(c, br)
	if err != nil {
		a.log.Warn("admin request refused", "err", err)
		fw.send(adminFrame{Error: err.Error()})
		return
	}
	ctx, cancel := context.WithCancel(a.base)
	defer cancel()
	go watchAdminClient(br, cancel) // EOF, error or a cancel line: stop the command
	if !a.waitTurn(ctx, fw) {
		if a.base.Err() != nil {
			fw.send(adminFrame{Error: "server is shutting down; the command did not run"})
		}
		return
	}
	defer func() { a.turn <- struct{}{} }()
	code := a.runSafely(ctx, req, fw)
	fw.send(adminFrame{Exit: &code})
}

// readAdminRequest reads and validates the first client line, within
// adminRequestTimeout.
func readAdminRequest(c net.Conn, br *bufio.Reader) (adminRequest, error) {
	var req adminRequest
	c.SetReadDeadline(time.Now().Add(adminRequestTimeout))
	line, err := readAdminLine(br, maxAdminRequest)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		return req, fmt.Errorf("read request: %w", err)
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return req, fmt.Errorf("decode request: %w", err)
	}
	switch {
	case req.V != adminProtocolVersion:
		return req, fmt.Errorf("unsupported protocol version %d, want %d", req.V, adminProtocolVersion)
	case len(req.Args) == 0:
		return req, errors.New("empty command")
	case !filepath.IsAbs(req.Cwd):
		return req, fmt.Errorf("cwd %q is not absolute", req.Cwd)
	}
	return req, nil
}

// readAdminLine reads one '\n'-terminated line of at most max bytes.
func readAdminLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("line longer than %d bytes", max)
		}
		if err == nil {
			return line, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
	}
}

// watchAdminClient cancels the command when the client hangs up or sends a
// cancel line. It returns when the connection is closed.
func watchAdminClient(br *bufio.Reader, cancel context.CancelFunc) {
	defer cancel()
	for {
		line, err := readAdminLine(br, maxAdminRequest)
		if err != nil {
			return
		}
		var req adminRequest
		if json.Unmarshal(line, &req) == nil && req.Cancel {
			return
		}
	}
}

// waitTurn blocks until no other command runs, telling the client it waits.
// It reports false when ctx ends first.
func (a *adminServer) waitTurn(ctx context.Context, fw *adminFrameWriter) bool {
	select {
	case <-a.turn:
		return true
	default:
	}
	fw.send(adminFrame{Stream: "stderr", Data: []byte("mcpvec: waiting for another command on the server to finish\n")})
	select {
	case <-a.turn:
		return true
	case <-ctx.Done():
		return false
	}
}

// runSafely calls the Runner with streaming writers, turning a panic into
// ExitAdminPanic.
func (a *adminServer) runSafely(ctx context.Context, req adminRequest, fw *adminFrameWriter) (code int) {
	stdout := &adminStreamWriter{fw: fw, stream: "stdout"}
	stderr := &adminStreamWriter{fw: fw, stream: "stderr"}
	defer fw.stopOutput()
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("admin command panicked", "args", req.Args, "panic", p, "stack", string(debug.Stack()))
			fmt.Fprintf(stderr, "mcpvec: internal error: %v\n", p)
			code = ExitAdminPanic
		}
	}()
	start := time.Now()
	a.log.Info("admin command", "args", req.Args, "cwd", req.Cwd)
	code = a.run(ctx, req.Args, req.Cwd, stdout, stderr)
	a.log.Info("admin command done", "args", req.Args, "exit", code, "took", time.Since(start).Round(time.Millisecond))
	return code
}

// adminFrameWriter writes whole frames to the connection, one at a time.
type adminFrameWriter struct {
	mu      sync.Mutex
	conn    net.Conn
	stopped bool // output frames are refused once the Runner returned
	err     error
}

func (f *adminFrameWriter) send(fr adminFrame) error {
	b, err := json.Marshal(fr)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writeLocked(b)
}

func (f *adminFrameWriter) writeLocked(b []byte) error {
	if f.err != nil {
		return f.err
	}
	if _, err := f.conn.Write(b); err != nil {
		f.err = fmt.Errorf("admin client gone: %w", err)
	}
	return f.err
}

func (f *adminFrameWriter) stopOutput() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

// adminStreamWriter is the io.Writer a Runner gets for stdout or stderr.
type adminStreamWriter struct {
	fw     *adminFrameWriter
	stream string
}

var errAdminRunnerReturned = errors.New("admin output closed: command returned")

// Write sends p as one or more frames. It is safe for concurrent use.
func (w *adminStreamWriter) Write(p []byte) (int, error) {
	w.fw.mu.Lock()
	defer w.fw.mu.Unlock()
	if w.fw.stopped {
		return 0, errAdminRunnerReturned
	}
	n := 0
	for n < len(p) {
		end := min(n+adminChunk, len(p))
		b, err := json.Marshal(adminFrame{Stream: w.stream, Data: p[n:end]})
		if err != nil {
			return n, err
		}
		if err := w.fw.writeLocked(append(b, '\n')); err != nil {
			return n, err
		}
		n = end
	}
	return n, nil
}

// CallAdmin sends one command to the server listening at path and streams
// the command's stdout and stderr to stdout and stderr as it runs; it
// returns the remote exit status. cwd must be absolute (relative paths in
// args are resolved by the server against it). When ctx is cancelled (Ctrl-C
// in the CLI) CallAdmin asks the server to cancel the command, waits up to a
// few seconds for its final output and status, and returns that status (or
// ExitAdminUnknown) with ctx's error. Errors: ErrNoAdmin when nothing listens
// at path, ErrInsecureSocketDir when path's directory is not private,
// ErrAdminProtocol when the server refused the request or the stream broke.
// Writes to stdout and stderr happen from the calling goroutine only.
func CallAdmin(ctx context.Context, path string, args []string, cwd string, stdout, stderr io.Writer) (int, error) {
	if err := ctx.Err(); err != nil {
		return ExitAdminUnknown, fmt.Errorf("call admin: %w", err)
	}
	if err := ensurePrivateSocketDir(filepath.Dir(path), false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ExitAdminUnknown, fmt.Errorf("%w: %s", ErrNoAdmin, path)
		}
		return ExitAdminUnknown, fmt.Errorf("call admin: %w", err)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return ExitAdminUnknown, fmt.Errorf("%w: %s", ErrNoAdmin, path)
		}
		return ExitAdminUnknown, fmt.Errorf("call admin: %w", err)
	}
	defer conn.Close()
	if err := writeAdminRequest(conn, adminRequest{V: adminProtocolVersion, Args: args, Cwd: cwd}); err != nil {
		return ExitAdminUnknown, fmt.Errorf("call admin: send request: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go cancelAdminOnDone(ctx, conn, done)
	code, err := readAdminFrames(conn, stdout, stderr)
	if ctx.Err() != nil {
		return code, fmt.Errorf("call admin: %w", ctx.Err())
	}
	return code, err
}

func writeAdminRequest(w io.Writer, req adminRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// cancelAdminOnDone asks the server to cancel once ctx ends, then gives it
// adminCancelGrace to report before cutting the connection.
func cancelAdminOnDone(ctx context.Context, conn net.Conn, done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	conn.SetWriteDeadline(time.Now().Add(time.Second))
	if writeAdminRequest(conn, adminRequest{Cancel: true}) != nil {
		conn.Close()
		return
	}
	conn.SetReadDeadline(time.Now().Add(adminCancelGrace))
}

// readAdminFrames copies output frames until the exit frame.
func readAdminFrames(conn net.Conn, stdout, stderr io.Writer) (int, error) {
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := readAdminLine(br, maxAdminFrame)
		if err != nil {
			return ExitAdminUnknown, fmt.Errorf("%w: stream ended without exit status: %w", ErrAdminProtocol, err)
		}
		var fr adminFrame
		if err := json.Unmarshal(line, &fr); err != nil {
			return ExitAdminUnknown, fmt.Errorf("%w: decode frame: %w", ErrAdminProtocol, err)
		}
		switch {
		case fr.Error != "":
			return ExitAdminUnknown, fmt.Errorf("%w: server refused: %s", ErrAdminProtocol, fr.Error)
		case fr.Exit != nil:
			return *fr.Exit, nil
		case fr.Stream == "stdout":
			stdout.Write(fr.Data)
		case fr.Stream == "stderr":
			stderr.Write(fr.Data)
		default:
			return ExitAdminUnknown, fmt.Errorf("%w: unknown frame %.100q", ErrAdminProtocol, line)
		}
	}
}
