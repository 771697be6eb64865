package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpvec/mcpvec/server/admin"
)

// proxyStdio serves `mcpvec serve --stdio` through the running server that
// holds the library: stdin's JSON-RPC lines go to that server's MCP handler
// over the admin channel, in a session of their own, and its answers come
// back on stdout, so a desktop app's stdio configuration works whether or
// not `mcpvec serve` runs. Nothing but MCP is written to stdout; the notes
// go to the log (stderr). Serving flags given here do not apply: the
// running server's do.
func proxyStdio(ctx context.Context, e *env, c *admin.Client, fs *flag.FlagSet) error {
	var ignored []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains([]string{"db", "stdio"}, f.Name) {
			ignored = append(ignored, "--"+f.Name)
		}
	})
	holder, pid := c.Holder()
	slog.Info("the library is open in another mcpvec process; serving MCP over stdio through it",
		"holder", holder, "pid", pid, "library", c.ServerLibrary())
	if len(ignored) > 0 {
		slog.Warn("these flags do not apply: the running server's settings do", "flags", ignored)
	}
	err := c.MCP(ctx, e.stdin, e.stdout)
	if errors.Is(err, admin.ErrNoMCP) {
		return failf("%w: the process holding the library serves no MCP sessions; run `mcpvec serve --stdio` once it has finished", err)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// executable is this binary's absolute, symlink-resolved path, which the
// Connect page's stdio snippets launch: desktop apps rarely have mcpvec on
// their PATH. It is "mcpvec" when the path cannot be found.
func executable() string {
	p, err := os.Executable()
	if err != nil {
		return "mcpvec"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}
