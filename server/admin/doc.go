// Package admin is mcpvec's local control channel: a running `mcpvec serve`
// holds the library file locked, so CLI commands (ingest, rm, reindex, ls, …)
// are sent to it over a unix socket and run in-process there, with their
// output streamed back. A writing command (a plain `mcpvec ingest`) holds
// it too and serves other processes' reads the same way.
//
// The channel is HTTP/1.1 over the unix socket. Listen serves it; Dial and
// Client.Run (or Call) use it. The package imports no other mcpvec package:
// the command itself is a Runner the caller supplies.
//
// # Protocol
//
//   - GET /v1/hello with header Mcpvec-Library: the absolute library path the
//     client means. 200 with JSON {"library","pid","holder"} when the
//     server holds that file (holder, which may be absent, names the
//     command holding it: "serve", "ingest", …); 409 when it holds another.
//   - POST /v1/run with JSON {"args","cwd","library"}. A refusal is a 4xx or
//     5xx status with a one-line text body. Otherwise 200, header
//     Mcpvec-Command naming the command, and a body of frames: one kind byte,
//     a 4-byte big-endian length, the payload. Kinds: 'o' stdout, 'e' stderr,
//     'x' the exit status (decimal) and last frame, '!' the command did not
//     run (message) and last frame. A body that ends without 'x' or '!'
//     means the command's status is unknown.
//   - POST /v1/cancel/{id} cancels that command's ctx (the CLI's Ctrl-C); its
//     output and status still arrive on the run response.
//   - GET /v1/mcp upgrades the connection to an MCP session (newline-
//     delimited JSON-RPC both ways) served by Options.MCP; see Client.MCP.
//     Sessions run beside commands, not in their turn.
//
// # Caveats
//
//   - Commands run one at a time in arrival order as the turn allows;
//     callers that wait are told so on stderr. Those Options.Beside names
//     (a server's reads) have a turn of their own beside the others.
//   - A client that stops reading cannot hold the turn: a command's output
//     is queued up to a bound (64 frames, at most 2 MiB; a full queue blocks
//     the Runner's writes), and a write to the client that makes no progress
//     within Options.WriteTimeout disconnects it, cancels its command and
//     fails the command's further writes. The turn passes on as soon as the
//     Runner returns, while its queued output still drains.
//   - A client that hangs up has its command's ctx cancelled. A Runner must
//     honour its ctx: Server.Close waits for it.
//   - Access control rests on the socket's directory being 0700 and owned by
//     the user, and on the socket being 0600 (checked on both sides); the
//     client refuses a socket path that is a symlink or not a socket.
//   - With Options.Library set, the server refuses requests that name
//     another library file (compared by device and inode, so any path to
//     the same file matches): a socket reached by mistake cannot run `rm`
//     on the wrong library.
//   - The socket path depends on the runtime directory the caller passes to
//     SocketPath (mcpvec passes XDG_RUNTIME_DIR): a CLI whose environment
//     differs from the server's computes another path and gets ErrNoServer.
//   - A Server and a Client are safe for concurrent use.
package admin

import "errors"

// Errors returned by Listen, Dial, Client.Run and Call; callers branch on
// them with errors.Is.
var (
	// ErrNoServer means no server listens at the socket path (no socket
	// file or directory, or a stale socket left by a killed server).
	ErrNoServer = errors.New("no mcpvec server is listening on the admin socket")
	// ErrInUse means another live server already listens on the socket.
	ErrInUse = errors.New("admin socket is in use by another server")
	// ErrInsecureSocket means the socket or its directory is not private to
	// this user, or the socket path is a symlink or not a socket, so the
	// other side might not be our server.
	ErrInsecureSocket = errors.New("admin socket is not private")
	// ErrWrongLibrary means the server at the socket holds another library
	// than the one the client named.
	ErrWrongLibrary = errors.New("the server at the admin socket holds another library")
	// ErrProtocol means the other side broke the protocol: a malformed
	// frame, a refused request, or a stream that ended without an exit
	// status.
	ErrProtocol = errors.New("admin protocol error")
)

// Exit statuses the channel itself reports.
const (
	// ExitPanic is the status reported when the Runner panicked.
	ExitPanic = 70
	// ExitUnknown is what Run returns when no status arrived.
	ExitUnknown = -1
)
