package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// server is one running `mcpvec serve` child.
type server struct {
	*childproc.Proc
	url   string        // the MCP endpoint
	ready time.Duration // from process start until initialize answered
}

// startServe starts `bin serve` on a free loopback port and waits, up to
// timeout, until its MCP endpoint answers initialize.
func startServe(ctx context.Context, bin string, env []string, db string, timeout time.Duration) (*server, error) {
	return startServeOn(ctx, bin, env, []string{"--db", db}, timeout)
}

// startServeOn is startServe on the library lib names (--db FILE or
// --store URL).
func startServeOn(ctx context.Context, bin string, env []string, lib []string, timeout time.Duration) (*server, error) {
	addr, err := childproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append(append([]string{"serve"}, lib...), "--addr", addr, "--no-web")...)
	cmd.Env = env
	start := time.Now()
	p, err := childproc.Start(cmd)
	if err != nil {
		return nil, err
	}
	s := &server{Proc: p, url: "http://" + addr + "/mcp"}
	if err := waitReady(ctx, s, start, timeout); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return s, nil
}

// waitReady waits, up to timeout, until s answers initialize, and sets
// s.ready to the time since start. It stops s when it returns an error.
func waitReady(ctx context.Context, s *server, start time.Time, timeout time.Duration) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.After(timeout)
	for {
		if st, _, _, err := childproc.Post(ctx, c, s.url, "", childproc.InitializeBody); err == nil && st == http.StatusOK {
			s.ready = time.Since(start)
			return nil
		}
		select {
		case <-s.Done():
			return fmt.Errorf("exited before it was ready: %s", childproc.Tail(s.Stderr.String(), 2000))
		case <-deadline:
			s.Stop()
			return fmt.Errorf("%w after %v: %s", errNotReady, timeout, childproc.Tail(s.Stderr.String(), 2000))
		case <-ctx.Done():
			s.Stop()
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
