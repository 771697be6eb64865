package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStreamsOutputAndExitStatus(t *testing.T) {
	path := sockPath(t)
	stdout := newSyncBuffer("first\n")
	release := make(chan struct{})
	var gotArgs []string
	var gotCwd string
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
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
	code, err := Call(context.Background(), path, "", args, "/some/cwd", stdout, &stderr)
	if err != nil {
		t.Fatalf("Call: %v", err)
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

func TestOutputIsByteExact(t *testing.T) {
	path := sockPath(t)
	// Larger than one frame, and not valid UTF-8.
	big := make([]byte, 3*maxChunk+17)
	for i := range big {
		big[i] = byte(i * 7)
	}
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		o.Write(big)
		e.Write([]byte{0xff, 0xfe, '\n'})
		return 0
	})
	var stdout, stderr bytes.Buffer
	code, err := Call(context.Background(), path, "", []string{"x"}, "/", &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("Call = %d, %v; want 0, nil", code, err)
	}
	if !bytes.Equal(stdout.Bytes(), big) {
		t.Errorf("stdout: got %d bytes, want the %d bytes written", stdout.Len(), len(big))
	}
	if got, want := stderr.Bytes(), []byte{0xff, 0xfe, '\n'}; !bytes.Equal(got, want) {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestCancelStopsRemoteCommand(t *testing.T) {
	path := sockPath(t)
	cancelled := make(chan struct{})
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
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
	stdout := newSyncBuffer("started\n")
	go func() {
		<-stdout.seen
		cancel() // Ctrl-C in the CLI
	}()
	var stderr syncBuffer
	start := time.Now()
	code, err := Call(ctx, path, "", []string{"ingest", "/x"}, "/", stdout, &stderr)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call error = %v, want context.Canceled", err)
	}
	waitFor(t, cancelled, "the remote command to see its ctx cancelled")
	if got, want := code, 130; got != want {
		t.Errorf("exit status = %d, want the remote command's %d", got, want)
	}
	if got, want := stderr.String(), "interrupted\n"; got != want {
		t.Errorf("stderr = %q, want the remote command's final output %q", got, want)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Call took %v after cancel", took)
	}
}

func TestClientHangupCancelsCommand(t *testing.T) {
	path := sockPath(t)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return 1
	})
	conn := rawRun(t, path, "rm", "x")
	waitFor(t, started, "the command to start")
	conn.Close() // the CLI was killed
	waitFor(t, cancelled, "the command to be cancelled after the client hung up")
}

func TestSerialisesConcurrentCallers(t *testing.T) {
	path := sockPath(t)
	var active, maxActive, runs atomic.Int32
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
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
			code, err := Call(context.Background(), path, "", []string{fmt.Sprint("cmd", i)}, "/", &outs[i], &errs[i])
			if err != nil || code != 0 {
				t.Errorf("caller %d: Call = %d, %v", i, code, err)
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

func TestQueuedCallerCanGiveUp(t *testing.T) {
	path := sockPath(t)
	release := make(chan struct{})
	var runs atomic.Int32
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		runs.Add(1)
		if args[0] == "slow" {
			fmt.Fprint(o, "running\n")
			<-release
		}
		return 0
	})
	firstDone := callRunning(t, path, "slow")
	ctx, cancel := context.WithCancel(context.Background())
	stderr := newSyncBuffer("waiting")
	go func() {
		<-stderr.seen
		cancel()
	}()
	code, err := Call(ctx, path, "", []string{"queued"}, "/", io.Discard, stderr)
	if !errors.Is(err, context.Canceled) || code != ExitUnknown {
		t.Errorf("queued Call = %d, %v; want %d, context.Canceled", code, err, ExitUnknown)
	}
	close(release)
	if err := (<-firstDone).err; err != nil {
		t.Fatalf("first Call: %v", err)
	}
	// The abandoned command must never run, and the lock must be free.
	code, err = Call(context.Background(), path, "", []string{"after"}, "/", io.Discard, io.Discard)
	if err != nil || code != 0 {
		t.Fatalf("Call after = %d, %v", code, err)
	}
	if got, want := runs.Load(), int32(2); got != want {
		t.Errorf("runs = %d, want %d (slow, after)", got, want)
	}
}

func TestRunnerPanic(t *testing.T) {
	path := sockPath(t)
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		if args[0] == "boom" {
			panic("boom")
		}
		return 0
	})
	var stderr bytes.Buffer
	code, err := Call(context.Background(), path, "", []string{"boom"}, "/", io.Discard, &stderr)
	if err != nil || code != ExitPanic {
		t.Errorf("Call = %d, %v; want %d, nil", code, err, ExitPanic)
	}
	if !strings.Contains(stderr.String(), "internal error: boom") {
		t.Errorf("stderr = %q, want it to mention the internal error", stderr.String())
	}
	if code, err := Call(context.Background(), path, "", []string{"ok"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Errorf("Call after a panic = %d, %v; want 0, nil", code, err)
	}
}

func TestWritesAfterReturnFail(t *testing.T) {
	path := sockPath(t)
	leaked := make(chan io.Writer, 1)
	mustListen(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		leaked <- o
		return 0
	})
	if code, err := Call(context.Background(), path, "", []string{"x"}, "/", io.Discard, io.Discard); err != nil || code != 0 {
		t.Fatalf("Call = %d, %v", code, err)
	}
	if n, err := (<-leaked).Write([]byte("late")); err == nil || n != 0 {
		t.Errorf("Write after the runner returned = %d, %v; want 0 and an error", n, err)
	}
}

func TestRejectsBadRequests(t *testing.T) {
	path := sockPath(t)
	runs := listenCounting(t, path, &Options{})
	_, err := Call(context.Background(), path, "", []string{"ingest"}, "relative/dir", io.Discard, io.Discard)
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("relative cwd: err = %v, want ErrProtocol about the cwd", err)
	}
	_, err = Call(context.Background(), path, "", nil, "/", io.Discard, io.Discard)
	if !errors.Is(err, ErrProtocol) {
		t.Errorf("empty command: err = %v, want ErrProtocol", err)
	}
	for _, tc := range []struct {
		method, target, body string
		want                 int
	}{
		{"POST", "/v1/run", `not json`, http.StatusBadRequest},
		{"POST", "/v1/run", `{"args":["x"],"cwd":"/"}` + strings.Repeat(" ", maxRequest), http.StatusBadRequest},
		{"POST", "/v2/run", `{"args":["x"],"cwd":"/"}`, http.StatusNotFound},
		{"GET", "/v1/run", ``, http.StatusMethodNotAllowed},
		{"POST", "/v1/cancel/nope", ``, http.StatusNotFound},
	} {
		if got := rawStatus(t, path, tc.method, tc.target, tc.body); got != tc.want {
			t.Errorf("%s %s %.40q: status %d, want %d", tc.method, tc.target, tc.body, got, tc.want)
		}
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("runner ran %d times for bad requests", got)
	}
}
