package main

import (
	"github.com/mcpvec/mcpvec/cmd/internal/childproc"

	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"
)

// server is one running `mcpvec serve` child.
type server struct {
	cmd    *exec.Cmd
	url    string // the MCP endpoint
	stderr *lockedBuffer
	done   chan struct{}
	ready  time.Duration // from process start until initialize answered
}

// startServe starts `bin serve` on a free loopback port and waits, up to
// timeout, until its MCP endpoint answers initialize.
func startServe(ctx context.Context, bin string, env []string, db string, timeout time.Duration) (*server, error) {
	return startServeOn(ctx, bin, env, []string{"--db", db}, timeout)
}

// startServeOn is startServe on the library lib names (--db FILE or
// --store URL).
func startServeOn(ctx context.Context, bin string, env []string, lib []string, timeout time.Duration) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{url: "http://" + addr + "/mcp", stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, append(append([]string{"serve"}, lib...), "--addr", addr, "--no-web")...)
	s.cmd.Env = env
	s.cmd.Stderr = s.stderr
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start serve: %w", err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	c := &http.Client{Timeout: time.Second}
	deadline := time.After(timeout)
	for {
		if st, _, _, err := childproc.Post(ctx, c, s.url, "", childproc.InitializeBody); err == nil && st == http.StatusOK {
			s.ready = time.Since(start)
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("serve exited before it was ready: %s", childproc.Tail(s.stderr.String(), 2000))
		case <-deadline:
			s.stop()
			return nil, fmt.Errorf("serve not ready after %v: %s", timeout, childproc.Tail(s.stderr.String(), 2000))
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// stop interrupts the server, as Ctrl-C would, and kills it if it has not
// exited ten seconds later.
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a
// child's output and reads of the harness.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
