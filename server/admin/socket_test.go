package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestNoServer(t *testing.T) {
	path := sockPath(t)
	_, err := Call(context.Background(), path, "", []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoServer) {
		t.Errorf("no socket: err = %v, want ErrNoServer", err)
	}
	_, err = Call(context.Background(), "/nonexistent-dir-mcpvec/a.sock", "", []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoServer) {
		t.Errorf("no directory: err = %v, want ErrNoServer", err)
	}
	makeStaleSocket(t, path)
	_, err = Call(context.Background(), path, "", []string{"ingest"}, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrNoServer) {
		t.Errorf("stale socket: err = %v, want ErrNoServer", err)
	}
}

func TestReplacesStaleSocket(t *testing.T) {
	path := sockPath(t)
	makeStaleSocket(t, path)
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int { return 7 })
	code, err := Call(context.Background(), path, "", []string{"x"}, "/", io.Discard, io.Discard)
	if err != nil || code != 7 {
		t.Fatalf("Call = %d, %v; want 7, nil", code, err)
	}
}

func TestRefusesLiveSocketAndOtherFiles(t *testing.T) {
	path := sockPath(t)
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int { return 5 })
	_, err := Listen(context.Background(), path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil)
	if !errors.Is(err, ErrInUse) {
		t.Errorf("second Listen: err = %v, want ErrInUse", err)
	}
	// The first server must be unharmed.
	if code, err := Call(context.Background(), path, "", []string{"x"}, "/", io.Discard, io.Discard); err != nil || code != 5 {
		t.Errorf("Call to first server = %d, %v; want 5, nil", code, err)
	}

	regular := filepath.Join(filepath.Dir(path), "file.sock")
	if err := os.WriteFile(regular, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(context.Background(), regular, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); err == nil {
		t.Errorf("Listen over a regular file succeeded")
	}
	if b, err := os.ReadFile(regular); err != nil || string(b) != "keep me" {
		t.Errorf("regular file was touched: %q, %v", b, err)
	}
}

func TestPermissions(t *testing.T) {
	path := sockPath(t)
	nested := filepath.Join(filepath.Dir(path), "made", "a.sock")
	mustListen(t, nested, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 })
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
	if _, err := Listen(context.Background(), openSock, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Listen in a 0755 directory: err = %v, want ErrInsecureSocket", err)
	}
	// A client must not talk to a socket others could have planted.
	ln, err := net.Listen("unix", openSock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := Call(context.Background(), openSock, "", []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Call in a 0755 directory: err = %v, want ErrInsecureSocket", err)
	}

	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(filepath.Dir(nested), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(context.Background(), filepath.Join(link, "a.sock"), "", []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Call through a symlinked directory: err = %v, want ErrInsecureSocket", err)
	}
}

func TestSocketPath(t *testing.T) {
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

	rt := ""
	p := SocketPath(rt, db)
	if len(p) > MaxSocketPath {
		t.Errorf("SocketPath = %q: %d bytes, want <= %d", p, len(p), MaxSocketPath)
	}
	wantDir := filepath.Join(os.TempDir(), fmt.Sprintf("mcpvec-%d", os.Getuid()))
	if runUser := fmt.Sprintf("/run/user/%d", os.Getuid()); runtime.GOOS == "linux" {
		if fi, err := os.Stat(runUser); err == nil && fi.IsDir() {
			wantDir = runUser
		}
	}
	if filepath.Dir(p) != wantDir {
		t.Errorf("SocketPath = %q, want it in %s", p, wantDir)
	}
	if got := SocketPath(rt, link); got != p {
		t.Errorf("through a symlink: %q, want %q", got, p)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if got := SocketPath(rt, "library.db"); got != p {
		t.Errorf("relative path: %q, want %q", got, p)
	}
	t.Chdir(wd)
	if got := SocketPath(rt, other); got == p {
		t.Errorf("two libraries share the socket %q", p)
	}

	name := filepath.Base(p)
	if !strings.HasPrefix(name, "mcpvec-") {
		name = "mcpvec-" + name
	}
	rt = "/run/user/4242"
	if got, want := SocketPath(rt, db), filepath.Join("/run/user/4242", name); got != want {
		t.Errorf("with a runtime dir: %q, want %q", got, want)
	}
	rt = "/" + strings.Repeat("x", 120)
	if got := SocketPath(rt, db); len(got) > MaxSocketPath || got != p {
		t.Errorf("with a too long runtime dir: %q, want the fallback %q", got, p)
	}
}

// TestEndToEndSocketPath runs the real default path (the one the CLI and
// the server compute from the same library path) and the library check.
func TestEndToEndSocketPath(t *testing.T) {
	db := filepath.Join(t.TempDir(), "library.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	path := SocketPath(rt, db)
	mustListenWith(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		fmt.Fprintf(o, "ran %s in %s\n", strings.Join(args, " "), cwd)
		return 0
	}, &Options{Library: db})
	var stdout bytes.Buffer
	code, err := Call(context.Background(), SocketPath(rt, db), db, []string{"rm", "doc1"}, "/home/u", &stdout, io.Discard)
	if err != nil || code != 0 {
		t.Fatalf("Call = %d, %v", code, err)
	}
	if got, want := stdout.String(), "ran rm doc1 in /home/u\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestFileOwner(t *testing.T) {
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

func TestRefusesDirectoryOfAnotherUser(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(filepath.Dir(sockPath(t)), "theirs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "a.sock")
	if _, err := Listen(context.Background(), sock, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Listen in another user's directory: err = %v, want ErrInsecureSocket", err)
	}
	if _, err := Call(context.Background(), sock, "", []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Call in another user's directory: err = %v, want ErrInsecureSocket", err)
	}
}

// The tests from here on are issue 15 finding 6: the CLI must not send a
// command to whatever answers at the socket path.

func TestDialRefusesSymlinkedSocket(t *testing.T) {
	path := sockPath(t)
	runs := listenCounting(t, path, &Options{})
	link := filepath.Join(filepath.Dir(path), "link.sock")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(context.Background(), link, "", []string{"rm", "x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Call through a symlinked socket: err = %v, want ErrInsecureSocket", err)
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("the command ran %d times through the symlink", got)
	}
}

func TestDialRefusesWhatIsNotAPrivateSocket(t *testing.T) {
	dir := filepath.Dir(sockPath(t))
	regular := filepath.Join(dir, "file.sock")
	if err := os.WriteFile(regular, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), regular, ""); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Dial of a regular file: err = %v, want ErrInsecureSocket", err)
	}
	open := filepath.Join(dir, "open.sock")
	ln, err := net.Listen("unix", open)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(open, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), open, ""); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Dial of a 0666 socket: err = %v, want ErrInsecureSocket", err)
	}
}

func TestServerRefusesAnotherLibrary(t *testing.T) {
	dir := t.TempDir()
	libA, libB := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	for _, p := range []string{libA, libB} {
		if err := os.WriteFile(p, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := sockPath(t)
	runs := listenCounting(t, path, &Options{Library: libA})

	_, err := Dial(context.Background(), path, libB)
	if !errors.Is(err, ErrWrongLibrary) || !strings.Contains(err.Error(), LibraryPath(libA)) {
		t.Errorf("Dial for another library: err = %v, want ErrWrongLibrary naming %s", err, libA)
	}
	if got := rawStatus(t, path, "POST", "/v1/run", `{"args":["rm","x"],"cwd":"/","library":"`+libB+`"}`); got != 409 {
		t.Errorf("run naming another library: status %d, want 409", got)
	}
	if got := rawStatus(t, path, "POST", "/v1/run", `{"args":["rm","x"],"cwd":"/"}`); got != 409 {
		t.Errorf("run naming no library: status %d, want 409", got)
	}
	if got := runs.Load(); got != 0 {
		t.Fatalf("a command for another library ran %d times", got)
	}

	// Any path to the same file is the same library.
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(libA, link); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), path, link)
	if err != nil {
		t.Fatalf("Dial through a symlink to the library: %v", err)
	}
	if got, want := c.ServerLibrary(), LibraryPath(libA); got != want {
		t.Errorf("ServerLibrary = %q, want %q", got, want)
	}
	if code, err := c.Run(context.Background(), []string{"ls"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Errorf("Run = %d, %v; want 0, nil", code, err)
	}
}

func TestDialRefusesSocketOfAnotherUser(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() != 0 {
		t.Skip("needs root to give a socket to another user")
	}
	path := sockPath(t)
	mustListen(t, path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 })
	if err := os.Lchown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), path, ""); !errors.Is(err, ErrInsecureSocket) {
		t.Errorf("Dial of another user's socket: err = %v, want ErrInsecureSocket", err)
	}
}

// TestDialReportsHolder: a client learns which command holds the library
// and its process id, so a CLI can say whom it hands a command to (or why
// a write is refused) before it sends anything.
func TestDialReportsHolder(t *testing.T) {
	path := sockPath(t)
	mustListenWith(t, path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, &Options{Holder: "ingest"})
	c, err := Dial(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	if cmd, pid := c.Holder(); cmd != "ingest" || pid != os.Getpid() {
		t.Errorf("Holder = %q, %d; want %q, %d", cmd, pid, "ingest", os.Getpid())
	}
}
