package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// upperLines is a StreamServer that answers each line with it upper-cased
// and, once in ends, a last line "bye".
func upperLines(ctx context.Context, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if _, err := fmt.Fprintln(out, strings.ToUpper(sc.Text())); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(out, "bye")
	return err
}

// blockingRunner prints "running" and returns when its ctx ends.
func blockingRunner(ctx context.Context, _ []string, _ string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, "running")
	<-ctx.Done()
	return 1
}

// TestMCPSessionBesideARunningCommand hands two MCP sessions to a server
// whose command turn is taken: each gets its own answers, the end of its
// input reaches the server (the last "bye"), and MCP returns once the
// server ends the session.
func TestMCPSessionBesideARunningCommand(t *testing.T) {
	path := sockPath(t)
	mustListenWith(t, path, blockingRunner, &Options{MCP: upperLines})
	cmd := callRunning(t, path, "hold")
	for _, word := range []string{"first", "second"} {
		c, err := Dial(context.Background(), path, "")
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = c.MCP(ctx, strings.NewReader(word+" line\nnext\n"), &out)
		cancel()
		if err != nil {
			t.Fatalf("MCP: %v", err)
		}
		if got, want := out.String(), strings.ToUpper(word)+" LINE\nNEXT\nbye\n"; got != want {
			t.Fatalf("session output = %q, want %q", got, want)
		}
	}
	select {
	case r := <-cmd:
		t.Fatalf("the running command ended during the sessions: %+v", r)
	default:
	}
}

// TestMCPRefusedWithoutHandler: a server without Options.MCP says so.
func TestMCPRefusedWithoutHandler(t *testing.T) {
	path := sockPath(t)
	listenCounting(t, path, &Options{})
	c, err := Dial(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.MCP(context.Background(), strings.NewReader("x\n"), io.Discard); !errors.Is(err, ErrNoMCP) {
		t.Fatalf("MCP without a handler = %v, want ErrNoMCP", err)
	}
}

// TestMCPSessionEndsOnClose: Close cancels a session whose client is still
// connected, and the client's MCP returns.
func TestMCPSessionEndsOnClose(t *testing.T) {
	path := sockPath(t)
	started := make(chan struct{})
	s := mustListenWith(t, path, blockingRunner, &Options{MCP: func(ctx context.Context, in io.Reader, out io.Writer) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}})
	c, err := Dial(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe() // stdin that never ends
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- c.MCP(context.Background(), pr, io.Discard) }()
	waitFor(t, started, "the session to start")
	s.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("MCP still running after the server closed")
	}
}
