package admin

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The tests in this file are issue 15 finding 6: the CLI must not send a
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
