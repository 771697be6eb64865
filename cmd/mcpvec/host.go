package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/admin"
)

// A writing command holds the library file's lock for as long as it runs
// (bbolt: one writing process, and no reading process beside it), which
// for a first ingest of a large folder is hours. So, like `serve`, it
// answers the read commands of other processes itself over the admin
// channel, from the library it is writing: a search sees each document
// as soon as it is committed. Writes handed to it are refused, not queued:
// a queued write would wait, silently, for as long as the writer runs, and
// would then run with the writer's flags and environment rather than its
// own; refused, the user learns at once what holds the library and reruns
// the command when it ends. The MCP sessions of `serve --stdio` clients
// are answered too, as `serve` answers them.

// writers are the commands that serve reads while they write.
var writers = map[string]bool{"ingest": true, "sync": true, "rm": true, "reindex": true}

// isWriter reports whether holder (what an admin server says holds the
// library) is a writing command, which refuses writes.
func isWriter(holder string) bool { return writers[holder] }

// hostedReads are the commands a writing command runs for other processes.
var hostedReads = map[string]bool{"search": true, "fetch": true, "ls": true, "info": true, "backup": true, "export": true}

// hostReads serves the read commands of other processes (hostedReads)
// over the admin channel while the writing command name runs on h, and
// refuses any other command with busyError. It returns what stops it,
// which waits for a read in progress. It does nothing inside a server
// (whose channel already serves), for a Weaviate library (every process
// opens it itself) or without a query path; when the channel cannot be
// opened, reads wait for the lock as before.
func hostReads(ctx context.Context, e *env, h *handle, name string) (stop func()) {
	if e.forwarded != nil || h.db == nil || h.lib == nil {
		return func() {}
	}
	st := &serveState{db: h.db, path: h.db.Path(), live: library.NewLive(h.lib), emb: h.emb}
	run := adminRunner(st)
	busy := &busyError{holder: name, pid: os.Getpid()}
	hosted := func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int {
		if !hostedReads[args[0]] {
			return exitStatus(stderr, busy)
		}
		return run(ctx, args, cwd, stdout, stderr)
	}
	// The writer's stderr carries its progress: only the channel's
	// warnings go there, not a line per read.
	quiet := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := &admin.Options{Library: h.db.Path(), Logger: quiet, Holder: name}
	// The MCP sessions of `serve --stdio` (a desktop app started while the
	// first ingest runs) are reads too: they are served from here as well.
	if mcp, err := server.New(st.live, server.Options{Version: Version, Logger: quiet}); err == nil {
		opts.MCP = mcp.ServeStream
	} else {
		slog.Debug("MCP sessions wait for this command", "err", err)
	}
	srv, err := admin.Listen(ctx, adminSocket(e, h.db.Path()), hosted, opts)
	if err != nil {
		slog.Debug("reads by other processes wait for this command: admin channel unavailable", "err", err)
		return func() {}
	}
	return func() { srv.Close() }
}
