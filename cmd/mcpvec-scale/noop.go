package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// noopEnv, when set in this program's environment, makes it a no-op MCP
// server listening on the address it holds (see serveNoop) instead of the
// harness: the -overhead mode starts itself so to measure what mcp-go's
// streamable HTTP transport alone costs beside serve, under the same load.
const noopEnv = "MCPVEC_SCALE_NOOP_ADDR"

// noopReply is the no-op server's answer to every search call.
const noopReply = "no-op"

// serveNoop serves noopHandler at addr; it returns when the listener
// fails.
func serveNoop(addr string) error {
	srv := &http.Server{Addr: addr, Handler: noopHandler(), ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

// noopHandler serves MCP at /mcp over mcp-go's streamable HTTP transport
// with default options, one tool "search" taking a string "query" and
// answering noopReply without looking at it.
func noopHandler() http.Handler {
	s := mcpserver.NewMCPServer("mcpvec-scale-noop", "1")
	s.AddTool(mcp.NewTool("search", mcp.WithString("query", mcp.Required())),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(noopReply), nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewStreamableHTTPServer(s))
	return mux
}

// startNoop starts this program as a no-op server on a free loopback port
// and waits, up to timeout, until it answers initialize.
func startNoop(ctx context.Context, timeout time.Duration) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("no-op server: %w", err)
	}
	addr, err := childproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), noopEnv+"="+addr)
	p, err := childproc.Start(cmd)
	if err != nil {
		return nil, err
	}
	s := &server{Proc: p, url: "http://" + addr + "/mcp"}
	if err := waitReady(ctx, s, time.Now(), timeout); err != nil {
		return nil, fmt.Errorf("no-op server: %w", err)
	}
	return s, nil
}

// errNotReady is waitReady's error when the server did not answer in time.
var errNotReady = errors.New("not ready")
