package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sockPath returns a socket path in a fresh private directory short
// enough for sun_path (t.TempDir can be too long for long test names).
func sockPath(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "mcpvec-adm")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "a.sock")
}

// mustListen starts a server and checks on cleanup that Close removed the
// socket.
func mustListen(tb testing.TB, path string, run Runner) *Server {
	tb.Helper()
	return mustListenWith(tb, path, run, &Options{})
}

// mustListenWith is mustListen with options; a nil Logger discards logs.
func mustListenWith(tb testing.TB, path string, run Runner, opts *Options) *Server {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	c, err := Listen(context.Background(), path, run, opts)
	if err != nil {
		tb.Fatalf("Listen: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			tb.Errorf("socket %s still exists after Close (err=%v)", path, err)
		}
	})
	return c
}

// syncBuffer is a bytes.Buffer safe for concurrent use that can signal when
// it first contains a string.
type syncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newSyncBuffer(want string) *syncBuffer {
	return &syncBuffer{want: want, seen: make(chan struct{})}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.want != "" && strings.Contains(b.buf.String(), b.want) {
		b.want = ""
		close(b.seen)
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// callResult is what a Call returned.
type callResult struct {
	code int
	err  error
}

// callRunning starts Call(arg) on the socket at path in a goroutine and
// returns once the command has printed "running"; the channel gets what
// Call returned.
func callRunning(t *testing.T, path, arg string) <-chan callResult {
	t.Helper()
	out := newSyncBuffer("running\n")
	done := make(chan callResult, 1)
	go func() {
		code, err := Call(context.Background(), path, "", []string{arg}, "/", out, io.Discard)
		done <- callResult{code, err}
	}()
	waitFor(t, out.seen, "the first command to run")
	return done
}

// listenCounting listens at path with a command that only counts its runs.
func listenCounting(t *testing.T, path string, opts *Options) *atomic.Int32 {
	t.Helper()
	var runs atomic.Int32
	mustListenWith(t, path, func(context.Context, []string, string, io.Writer, io.Writer) int {
		runs.Add(1)
		return 0
	}, opts)
	return &runs
}

func waitFor(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

// makeStaleSocket leaves a socket file at path that nobody listens on, as a
// killed server would.
func makeStaleSocket(tb testing.TB, path string) {
	tb.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if err := os.Chmod(path, 0o600); err != nil { // as a server leaves it
		tb.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
		tb.Fatalf("stale socket not left behind: %v", err)
	}
}

// rawRun sends a run request for args by hand and never reads the answer,
// as a CLI that stalls or dies would. The connection is closed on cleanup.
func rawRun(tb testing.TB, path string, args ...string) net.Conn {
	tb.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	body, err := json.Marshal(runRequest{Args: args, Cwd: "/"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "POST /v1/run HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		tb.Fatal(err)
	}
	return conn
}

// rawStatus sends one request, bypassing the client's checks, and returns
// the answer's status code.
func rawStatus(tb testing.TB, path, method, target, body string) int {
	tb.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	req, err := http.NewRequest(method, "http://x"+target, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
