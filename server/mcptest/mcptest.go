// Package mcptest is the test kit for driving an MCP server from tests: a
// tool call over an mcp-go client, and the check that the Node clients in
// server/testdata/node (the official TypeScript SDK, the conformance suite)
// are installed.
//
// It imports no mcpvec package, so the server's tests and cmd's end-to-end
// tests may both use it.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// CallTool calls the tool name with args, within 30 seconds, and returns
// its result; a failed call (not a tool error) fails tb.
func CallTool(tb testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		tb.Fatalf("call %s %v: %v", name, args, err)
	}
	return res
}

// RequiredEnv set to "required" (as CI does) makes missing Node packages a
// test failure instead of a skip, so CI cannot pass by skipping.
const RequiredEnv = "MCPVEC_NODE_TESTS"

// RequireNode returns the path of node. It skips tb when one of the npm
// packages pkgs is not installed under dir/node_modules (fails it when
// RequiredEnv is "required"), and fails tb when they are installed but node
// is not on PATH.
func RequireNode(tb testing.TB, dir string, pkgs ...string) string {
	tb.Helper()
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			msg := fmt.Sprintf("node_modules not installed (%v); run: (cd %s && npm ci --no-audit --no-fund)", err, dir)
			if os.Getenv(RequiredEnv) == "required" {
				tb.Fatal(msg)
			}
			tb.Skip(msg)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Fatalf("node_modules is installed but node is not on PATH: %v", err)
	}
	return node
}
