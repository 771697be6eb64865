package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// adminSockPath returns a socket path in a fresh private directory short
// enough for sun_path (t.TempDir can be too long for long test names).
func adminSockPath(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "mcpvec-adm")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "a.sock")
}

// mustListenAdmin starts an admin server and checks on cleanup that Close
// removed the socket.
func mustListenAdmin(tb testing.TB, path string, run Runner) io.Closer {
	tb.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := ListenAdmin(context.Background(), path, run, logger)
	if err != nil {
		tb.Fatalf("ListenAdmin: %v", err)
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

// adminBuffer is a bytes.Buffer safe for concurrent use that can signal when
// it first contains a string.
type adminBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newAdminBuffer(want string) *adminBuffer {
	return &adminBuffer{want: want, seen: make(chan struct{})}
}

func (b *adminBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.want != "" && strings.Contains(b.buf.String(), b.want) {
		b.want = ""
		close(b.seen)
	}
	return n, err
}

func (b *adminBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func adminWaitFor(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

func TestAdminStreamsOutputAndExitStatus(t *testing.T) {
	path := adminSockPath(t)
	stdout := newAdminBuffer("first\n")
	release := make(chan struct{})
	var gotArgs []string
	var gotCwd string
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		gotArgs, gotCwd = args, cwd
		fmt.Fprint(o, "first\n")
		// The caller must see "first" while the command still runs.
		select {
		case <-release:
		case <-ctx.Done():
			return 99
		}
		fmt.Fprint(o, "second\n")
		fmt.Fprint(e, "a warning\n")
		return 3
	})
	go func() {
		<-stdout.seen
		close(release)
	}()
	var stderr bytes.Buffer
	args := []string{"ingest", "--url-prefix", "https://example.com/", "/abs/new.pdf"}
	code, err := CallAdmin(context.Background(), path, args, "/some/cwd", stdout, &stderr)
	if err != nil {
		t.Fatalf("CallAdmin: %v", err)
	}
	if got, want := code, 3; got != want {
		t.Errorf("exit status = %d, want %d", got, want)
	}
	if got, want := stdout.String(), "first\nsecond\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := stderr.String(), "a warning\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if got, want := strings.Join(gotArgs, "|"), strings.Join(args, "|"); got != want {
		t.Errorf("runner args = %q, want %q", got, want)
	}
	if got, want := gotCwd, "/some/cwd"; got != want {
		t.Errorf("runner cwd = %q, want %q", got, want)
	}
}

func TestAdminOutputIsByteExact(t *testing.T) {
	path := adminSockPath(t)
	// Larger than one frame, and not valid UTF-8.
	big := make([]byte, 3*adminChunk+17)
	for i := range big {
		big[i] = byte(i * 7)
	}
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		o.Write(big)
		e.Write([]byte{0xff, 0xfe, '\n'})
		return 0
	})
	var stdout, stderr bytes.Buffer
	code, err := CallAdmin(context.Background(), path, []string{"x"}, "/", &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("CallAdmin = %d, %v; want 0, nil", code, err)
	}
	if !bytes.Equal(stdout.Bytes(), big) {
		t.Errorf("stdout: got %d bytes, want the %d bytes written", stdout.Len(), len(big))
	}
	if got, want := stderr.Bytes(), []byte{0xff, 0xfe, '\n'}; !bytes.Equal(got, want) {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestAdminCancelStopsRemoteCommand(t *testing.T) {
	path := adminSockPath(t)
	cancelled := make(chan struct{})
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		fmt.Fprint(o, "started\n")
		select {
		case <-ctx.Done():
		case <-time.After(30 * time.Second):
			return 0
		}
		close(cancelled)
		fmt.Fprint(e, "interrupted\n")
		return 130
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout := newAdminBuffer("started\n")
	go func() {
		<-stdout.seen
		cancel() // Ctrl-C in the CLI
	}()
	var stderr adminBuffer
	start := time.Now()
	code, err := CallAdmin(ctx, path, []string{"ingest", "/x"}, "/", stdout, &stderr)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallAdmin error = %v, want context.Canceled", err)
	}
	adminWaitFor(t, cancelled, "the remote command to see its ctx cancelled")
	if got, want := code, 130; got != want {
		t.Errorf("exit status = %d, want the remote command's %d", got, want)
	}
	if got, want := stderr.String(), "interrupted\n"; got != want {
		t.Errorf("stderr = %q, want the remote command's final output %q", got, want)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("CallAdmin took %v after cancel", took)
	}
}

func TestAdminClientHangupCancelsCommand(t *testing.T) {
	path := adminSockPath(t)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return 1
	})
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAdminRequest(conn, adminRequest{V: adminProtocolVersion, Args: []string{"rm", "x"}, Cwd: "/"}); err != nil {
		t.Fatal(err)
	}
	adminWaitFor(t, started, "the command to start")
	conn.Close() // the CLI was killed
	adminWaitFor(t, cancelled, "the command to be cancelled after the client hung up")
}

func TestAdminSerialisesConcurrentCallers(t *testing.T) {
	path := adminSockPath(t)
	var active, maxActive, runs atomic.Int32
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		n := active.Add(1)
		defer active.Add(-1)
		for {
			m := maxActive.Load()
			if n <= m || maxActive.CompareAndSwap(m, n) {
				break
			}
		}
		runs.Add(1)
		time.Sleep(20 * time.Millisecond)
		fmt.Fprintf(o, "%s\n", args[0])
		return 0
	})
	const callers = 6
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, callers)
	errs := make([]bytes.Buffer, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, err := CallAdmin(context.Background(), path, []string{fmt.Sprint("cmd", i)}, "/", &outs[i], &errs[i])
			if err != nil || code != 0 {
				t.Errorf("caller %d: CallAdmin = %d, %v", i, code, err)
			}
		}()
	}
	wg.Wait()
	if got, want := runs.Load(), int32(callers); got != want {
		t.Errorf("runs = %d, want %d", got, want)
	}
	if got := maxActive.Load(); got != 1 {
		t.Errorf("at most %d commands ran at once, want 1", got)
	}
	waited := 0
	for i := range callers {
		if got, want := outs[i].String(), fmt.Sprintf("cmd%d\n", i); got != want {
			t.Errorf("caller %d got stdout %q, want its own %q", i, got, want)
		}
		if strings.Contains(errs[i].String(), "waiting for another command") {
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("no caller was told it waits for another command")
	}
}

func TestAdminQueuedCallerCanGiveUp(t *testing.T) {
	path := adminSockPath(t)
	release := make(chan struct{})
	var runs atomic.Int32
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		runs.Add(1)
		if args[0] == "slow" {
			fmt.Fprint(o, "running\n")
			<-release
		}
		return 0
	})
	first := newAdminBuffer("running\n")
	firstDone := make(chan error, 1)
	go func() {
		_, err := CallAdmin(context.Background(), path, []string{"slow"}, "/", first, io.Discard)
		firstDone <- err
	}()
	adminWaitFor(t, first.seen, "the first command to run")
	ctx, cancel := context.WithCancel(context.Background())
	stderr := newAdminBuffer("waiting")
	go func() {
		<-stderr.seen
		cancel()
	}()
	code, err := CallAdmin(ctx, path, []string{"queued"}, "/", io.Discard, stderr)
	if !errors.Is(err, context.Canceled) || code != ExitAdminUnknown {
		t.Errorf("queued CallAdmin = %d, %v; want %d, context.Canceled", code, err, ExitAdminUnknown)
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatalf("first CallAdmin: %v", err)
	}
	// The abandoned command must never run, and the lock must be free.
	code, err = CallAdmin(context.Background(), path, []string{"after"}, "/", io.Discard, io.Discard)
	if err != nil || code != 0 {
		t.Fatalf("CallAdmin after = %d, %v", code, err)
	}
	if got, want := runs.Load(), int32(2); got != want {
		t.Errorf("runs = %d, want %d (slow, after)", got, want)
	}
}

func TestAdminNoServer(t *testing.T) {
	path := adminSockPath(t)
	_, err := CallAdmin(context.Background(), path, []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoAdmin) {
		t.Errorf("no socket: err = %v, want ErrNoAdmin", err)
	}
	_, err = CallAdmin(context.Background(), "/nonexistent-dir-mcpvec/a.sock", []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoAdmin) {
		t.Errorf("no directory: err = %v, want ErrNoAdmin", err)
	}
	makeStaleAdminSocket(t, path)
	_, err = CallAdmin(context.Background(), path, []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoAdmin) {
		t.Errorf("stale socket: err = %v, want ErrNoAdmin", err)
	}
}

// makeStaleAdminSocket leaves a socket file at path that nobody listens on, as a
// killed server would.
func makeStaleAdminSocket(tb testing.TB, path string) {
	tb.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
		tb.Fatalf("stale socket not left behind: %v", err)
	}
}

func TestAdminReplacesStaleSocket(t *testing.T) {
	path := adminSockPath(t)
	makeStaleAdminSocket(t, path)
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int { return 7 })
	code, err := CallAdmin(context.Background(), path, []string{"x"}, "/", io.Discard, io.Discard)
	if err != nil || code != 7 {
		t.Fatalf("CallAdmin = %d, %v; want 7, nil", code, err)
	}
}

func TestAdminRefusesLiveSocketAndOtherFiles(t *testing.T) {
	path := adminSockPath(t)
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int { return 5 })
	_, err := ListenAdmin(context.Background(), path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil)
	if !errors.Is(err, ErrAdminInUse) {
		t.Errorf("second ListenAdmin: err = %v, want ErrAdminInUse", err)
	}
	// The first server must be unharmed.
	if code, err := CallAdmin(context.Background(), path, []string{"x"}, "/", io.Discard, io.Discard); err != nil || code != 5 {
		t.Errorf("CallAdmin to first server = %d, %v; want 5, nil", code, err)
	}

	regular := filepath.Join(filepath.Dir(path), "file.sock")
	if err := os.WriteFile(regular, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenAdmin(context.Background(), regular, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); err == nil {
		t.Errorf("ListenAdmin over a regular file succeeded")
	}
	if b, err := os.ReadFile(regular); err != nil || string(b) != "keep me" {
		t.Errorf("regular file was touched: %q, %v", b, err)
	}
}

func TestAdminPermissions(t *testing.T) {
	path := adminSockPath(t)
	nested := filepath.Join(filepath.Dir(path), "made", "a.sock")
	mustListenAdmin(t, nested, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 })
	fi, err := os.Lstat(nested)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), fs.FileMode(0o600); got != want {
		t.Errorf("socket mode = %v, want %v", got, want)
	}
	di, err := os.Lstat(filepath.Dir(nested))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := di.Mode().Perm(), fs.FileMode(0o700); got != want {
		t.Errorf("created directory mode = %v, want %v", got, want)
	}

	open := filepath.Join(filepath.Dir(path), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	openSock := filepath.Join(open, "a.sock")
	if _, err := ListenAdmin(context.Background(), openSock, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); !errors.Is(err, ErrInsecureSocketDir) {
		t.Errorf("ListenAdmin in a 0755 directory: err = %v, want ErrInsecureSocketDir", err)
	}
	// A client must not talk to a socket others could have planted.
	ln, err := net.Listen("unix", openSock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := CallAdmin(context.Background(), openSock, []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocketDir) {
		t.Errorf("CallAdmin in a 0755 directory: err = %v, want ErrInsecureSocketDir", err)
	}

	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(filepath.Dir(nested), link); err != nil {
		t.Fatal(err)
	}
	if _, err := CallAdmin(context.Background(), filepath.Join(link, "a.sock"), []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocketDir) {
		t.Errorf("CallAdmin through a symlinked directory: err = %v, want ErrInsecureSocketDir", err)
	}
}

func TestAdminCloseCancelsRunningCommand(t *testing.T) {
	path := adminSockPath(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var finished atomic.Bool
	c, err := ListenAdmin(context.Background(), path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		fmt.Fprint(o, "running\n")
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // e.g. rolling back a transaction
		finished.Store(true)
		return 130
	}, logger)
	if err != nil {
		t.Fatal(err)
	}
	stdout := newAdminBuffer("running\n")
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := CallAdmin(context.Background(), path, []string{"ingest"}, "/", stdout, io.Discard)
		done <- result{code, err}
	}()
	adminWaitFor(t, stdout.seen, "the command to run")
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !finished.Load() {
		t.Errorf("Close returned before the running command did")
	}
	if r := <-done; r.err != nil || r.code != 130 {
		t.Errorf("CallAdmin = %d, %v; want 130, nil", r.code, r.err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket still exists after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := CallAdmin(context.Background(), path, []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrNoAdmin) {
		t.Errorf("CallAdmin after Close: err = %v, want ErrNoAdmin", err)
	}
}

func TestAdminStopsWhenContextEnds(t *testing.T) {
	path := adminSockPath(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := ListenAdmin(ctx, path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("socket not removed after ctx was cancelled")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAdminCloseKeepsReplacedSocket(t *testing.T) {
	path := adminSockPath(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := ListenAdmin(context.Background(), path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, logger)
	if err != nil {
		t.Fatal(err)
	}
	// Someone removed our socket and a new server took the path.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("Close removed a socket that was not its own: %v", err)
	}
}

func TestAdminRunnerPanic(t *testing.T) {
	path := adminSockPath(t)
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		if args[0] == "boom" {
			panic("boom")
		}
		return 0
	})
	var stderr bytes.Buffer
	code, err := CallAdmin(context.Background(), path, []string{"boom"}, "/", io.Discard, &stderr)
	if err != nil || code != ExitAdminPanic {
		t.Errorf("CallAdmin = %d, %v; want %d, nil", code, err, ExitAdminPanic)
	}
	if !strings.Contains(stderr.String(), "internal error: boom") {
		t.Errorf("stderr = %q, want it to mention the internal error", stderr.String())
	}
	if code, err := CallAdmin(context.Background(), path, []string{"ok"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Errorf("CallAdmin after a panic = %d, %v; want 0, nil", code, err)
	}
}

func TestAdminWritesAfterReturnFail(t *testing.T) {
	path := adminSockPath(t)
	leaked := make(chan io.Writer, 1)
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		leaked <- o
		return 0
	})
	if code, err := CallAdmin(context.Background(), path, []string{"x"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Fatalf("CallAdmin = %d, %v", code, err)
	}
	if n, err := (<-leaked).Write([]byte("late")); err == nil || n != 0 {
		t.Errorf("Write after the runner returned = %d, %v; want 0 and an error", n, err)
	}
}

func TestAdminRejectsBadRequests(t *testing.T) {
	path := adminSockPath(t)
	var runs atomic.Int32
	mustListenAdmin(t, path, func(context.Context, []string, string, io.Writer, io.Writer) int {
		runs.Add(1)
		return 0
	})
	_, err := CallAdmin(context.Background(), path, []string{"ingest"}, "relative/dir", io.Discard, io.Discard)
	if !errors.Is(err, ErrAdminProtocol) || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("relative cwd: err = %v, want ErrAdminProtocol about the cwd", err)
	}
	_, err = CallAdmin(context.Background(), path, nil, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrAdminProtocol) {
		t.Errorf("empty command: err = %v, want ErrAdminProtocol", err)
	}
	for _, line := range []string{`{"v":2,"args":["x"],"cwd":"/"}`, `not json`} {
		if got := rawAdminExchange(t, path, line+"\n"); !strings.Contains(got, `"error"`) {
			t.Errorf("request %s: reply %q, want an error frame", line, got)
		}
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("runner ran %d times for bad requests", got)
	}
}

// rawAdminExchange sends raw bytes and returns everything the server says.
func rawAdminExchange(tb testing.TB, path, send string) string {
	tb.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, send); err != nil {
		tb.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		var fr adminFrame
		if json.Unmarshal(sc.Bytes(), &fr) == nil && (fr.Error != "" || fr.Exit != nil) {
			break
		}
	}
	return out.String()
}

func TestAdminSocketPath(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "library.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")

	t.Setenv("XDG_RUNTIME_DIR", "")
	p := AdminSocketPath(db)
	if len(p) > sunPathMax {
		t.Errorf("AdminSocketPath = %q: %d bytes, want <= %d", p, len(p), sunPathMax)
	}
	wantDir := filepath.Join(os.TempDir(), fmt.Sprintf("mcpvec-%d", os.Getuid()))
	if runUser := fmt.Sprintf("/run/user/%d", os.Getuid()); runtime.GOOS == "linux" {
		if fi, err := os.Stat(runUser); err == nil && fi.IsDir() {
			wantDir = runUser
		}
	}
	if filepath.Dir(p) != wantDir {
		t.Errorf("AdminSocketPath = %q, want it in %s", p, wantDir)
	}
	if got := AdminSocketPath(link); got != p {
		t.Errorf("through a symlink: %q, want %q", got, p)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if got := AdminSocketPath("library.db"); got != p {
		t.Errorf("relative path: %q, want %q", got, p)
	}
	t.Chdir(wd)
	if got := AdminSocketPath(other); got == p {
		t.Errorf("two libraries share the socket %q", p)
	}

	name := filepath.Base(p)
	if !strings.HasPrefix(name, "mcpvec-") {
		name = "mcpvec-" + name
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/4242")
	if got, want := AdminSocketPath(db), filepath.Join("/run/user/4242", name); got != want {
		t.Errorf("with XDG_RUNTIME_DIR: %q, want %q", got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/"+strings.Repeat("x", 120))
	if got := AdminSocketPath(db); len(got) > sunPathMax || got != p {
		t.Errorf("with a too long XDG_RUNTIME_DIR: %q, want the fallback %q", got, p)
	}
}

// TestAdminEndToEndSocketPath runs the real default path: the one the CLI
// and the server compute from the same library path.
func TestAdminEndToEndSocketPath(t *testing.T) {
	db := filepath.Join(t.TempDir(), "library.db")
	path := AdminSocketPath(db)
	mustListenAdmin(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		fmt.Fprintf(o, "ran %s in %s\n", strings.Join(args, " "), cwd)
		return 0
	})
	var stdout bytes.Buffer
	code, err := CallAdmin(context.Background(), AdminSocketPath(db), []string{"rm", "doc1"}, "/home/u", &stdout, io.Discard)
	if err != nil || code != 0 {
		t.Fatalf("CallAdmin = %d, %v", code, err)
	}
	if got, want := stdout.String(), "ran rm doc1 in /home/u\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestAdminCloseRefusesQueuedCommand(t *testing.T) {
	path := adminSockPath(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var runs atomic.Int32
	c, err := ListenAdmin(context.Background(), path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		runs.Add(1)
		fmt.Fprint(o, "running\n")
		<-ctx.Done()
		return 130
	}, logger)
	if err != nil {
		t.Fatal(err)
	}
	first := newAdminBuffer("running\n")
	firstDone := make(chan int, 1)
	go func() {
		code, _ := CallAdmin(context.Background(), path, []string{"first"}, "/", first, io.Discard)
		firstDone <- code
	}()
	adminWaitFor(t, first.seen, "the first command to run")
	queued := newAdminBuffer("waiting")
	queuedErr := make(chan error, 1)
	go func() {
		_, err := CallAdmin(context.Background(), path, []string{"second"}, "/", io.Discard, queued)
		queuedErr <- err
	}()
	adminWaitFor(t, queued.seen, "the second command to queue")
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := <-firstDone; got != 130 {
		t.Errorf("first command exit = %d, want 130", got)
	}
	if err := <-queuedErr; !errors.Is(err, ErrAdminProtocol) || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("queued command: err = %v, want ErrAdminProtocol saying the server shuts down", err)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("runs = %d, want 1 (the queued command must not run)", got)
	}
}

func TestAdminFileOwner(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no uid on windows")
	}
	fi, err := os.Lstat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	uid, ok := fileOwner(fi)
	if !ok || uid != os.Getuid() {
		t.Errorf("fileOwner = %d, %v; want %d, true", uid, ok, os.Getuid())
	}
}

func TestAdminRefusesDirectoryOfAnotherUser(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(filepath.Dir(adminSockPath(t)), "theirs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "a.sock")
	if _, err := ListenAdmin(context.Background(), sock, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); !errors.Is(err, ErrInsecureSocketDir) {
		t.Errorf("ListenAdmin in another user's directory: err = %v, want ErrInsecureSocketDir", err)
	}
	if _, err := CallAdmin(context.Background(), sock, []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocketDir) {
		t.Errorf("CallAdmin in another user's directory: err = %v, want ErrInsecureSocketDir", err)
	}
}

func ExampleCallAdmin() {
	dir, err := os.MkdirTemp("", "mcpvec-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "admin.sock") // mcpvec uses AdminSocketPath(dbPath)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// In `mcpvec serve`, which holds the library open:
	run := func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int {
		fmt.Fprintf(stdout, "server runs %q in %s\n", args, cwd)
		return 0
	}
	closer, err := ListenAdmin(context.Background(), path, run, quiet)
	if err != nil {
		panic(err)
	}
	defer closer.Close()

	// In `mcpvec ingest new.pdf` in another terminal:
	code, err := CallAdmin(context.Background(), path, []string{"ingest", "/home/me/new.pdf"}, "/home/me", os.Stdout, os.Stderr)
	fmt.Println("exit status", code, err)
	// Output:
	// server runs ["ingest" "/home/me/new.pdf"] in /home/me
	// exit status 0 <nil>
}
