package admin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"
)

// TestStalledClientDoesNotBlockOthers is issue 15 finding 5: a forwarded
// command whose reader stops (output piped into a stalled process) must not
// hold the server's turn forever. The stalled client is disconnected, its
// command cancelled, and the next command runs.
func TestStalledClientDoesNotBlockOthers(t *testing.T) {
	path := sockPath(t)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	mustListenWith(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		if args[0] != "flood" {
			fmt.Fprint(o, "ran\n")
			return 0
		}
		close(started)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for ctx.Err() == nil {
			if _, err := o.Write(chunk); err != nil {
				break
			}
		}
		<-ctx.Done()
		close(cancelled)
		return 1
	}, &Options{WriteTimeout: 300 * time.Millisecond})
	rawRun(t, path, "flood") // never reads its answer
	waitFor(t, started, "the flooding command to start")

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var stdout bytes.Buffer
	code, err := Call(ctx, path, "", []string{"next"}, "/", &stdout, io.Discard)
	if err != nil || code != 0 {
		t.Fatalf("next command = %d, %v: a stalled client held the turn", code, err)
	}
	if got, want := stdout.String(), "ran\n"; got != want {
		t.Errorf("next command stdout = %q, want %q", got, want)
	}
	waitFor(t, cancelled, "the stalled client's command to be cancelled")
}

// TestTurnPassesWhileOutputDrains checks the bounded buffer: a command whose
// output fits in the buffer releases the turn when it returns, even before
// its client has read that output.
func TestTurnPassesWhileOutputDrains(t *testing.T) {
	path := sockPath(t)
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		if args[0] == "chatty" {
			o.Write(bytes.Repeat([]byte("y"), 256<<10)) // more than the socket buffers
		}
		return 0
	})
	rawRun(t, path, "chatty") // reads nothing, yet
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if code, err := Call(ctx, path, "", []string{"next"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Fatalf("next command = %d, %v; want it to run while the first one's output waits", code, err)
	}
}

// TestCloseWithStalledClient checks that a client that stopped reading
// cannot hold up shutdown beyond the write timeout.
func TestCloseWithStalledClient(t *testing.T) {
	path := sockPath(t)
	started := make(chan struct{})
	s, err := Listen(context.Background(), path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		close(started)
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for ctx.Err() == nil {
			if _, err := o.Write(chunk); err != nil {
				break
			}
		}
		return 1
	}, &Options{WriteTimeout: 300 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	rawRun(t, path, "flood")
	waitFor(t, started, "the command to start")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a client that stopped reading")
	}
}
