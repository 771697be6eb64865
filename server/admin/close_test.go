package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCloseCancelsRunningCommand(t *testing.T) {
	path := sockPath(t)
	logger := quietLogger()
	var finished atomic.Bool
	c, err := Listen(context.Background(), path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		fmt.Fprint(o, "running\n")
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // e.g. rolling back a transaction
		finished.Store(true)
		return 130
	}, &Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	stdout := newSyncBuffer("running\n")
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Call(context.Background(), path, "", []string{"ingest"}, "/", stdout, io.Discard)
		done <- result{code, err}
	}()
	waitFor(t, stdout.seen, "the command to run")
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !finished.Load() {
		t.Errorf("Close returned before the running command did")
	}
	if r := <-done; r.err != nil || r.code != 130 {
		t.Errorf("Call = %d, %v; want 130, nil", r.code, r.err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket still exists after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := Call(context.Background(), path, "", []string{"x"}, "/", io.Discard, io.Discard); !errors.Is(err, ErrNoServer) {
		t.Errorf("Call after Close: err = %v, want ErrNoServer", err)
	}
}

func TestStopsWhenContextEnds(t *testing.T) {
	path := sockPath(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Listen(ctx, path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, nil)
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

func TestCloseKeepsReplacedSocket(t *testing.T) {
	path := sockPath(t)
	logger := quietLogger()
	c, err := Listen(context.Background(), path, func(context.Context, []string, string, io.Writer, io.Writer) int { return 0 }, &Options{Logger: logger})
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

func TestCloseRefusesQueuedCommand(t *testing.T) {
	path := sockPath(t)
	logger := quietLogger()
	var runs atomic.Int32
	c, err := Listen(context.Background(), path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		runs.Add(1)
		fmt.Fprint(o, "running\n")
		<-ctx.Done()
		return 130
	}, &Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	firstDone := callRunning(t, path, "first")
	queued := newSyncBuffer("waiting")
	queuedErr := make(chan error, 1)
	go func() {
		_, err := Call(context.Background(), path, "", []string{"second"}, "/", io.Discard, queued)
		queuedErr <- err
	}()
	waitFor(t, queued.seen, "the second command to queue")
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := (<-firstDone).code; got != 130 {
		t.Errorf("first command exit = %d, want 130", got)
	}
	if err := <-queuedErr; !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("queued command: err = %v, want ErrProtocol saying the server shuts down", err)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("runs = %d, want 1 (the queued command must not run)", got)
	}
}
