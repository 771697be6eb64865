package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// MCP sessions over the channel: `mcpvec serve --stdio` started beside a
// running server hands its stdin and stdout to that server's MCP handler.
//
// GET /v1/mcp with headers Mcpvec-Library, Connection: Upgrade and
// Upgrade: mcpvec-mcp. The server answers 101 Switching Protocols and the
// connection then carries newline-delimited JSON-RPC both ways, unframed:
// the client's messages until it half-closes its side (its stdin ended),
// the server's answers until the session ends and the server closes the
// connection. A refusal is a 4xx or 5xx status with a one-line body (501
// when the server runs no MCP handler). Sessions do not take the command
// turn: they run beside commands and each other.

// ErrNoMCP means the server does not serve MCP sessions over the channel.
var ErrNoMCP = errors.New("the server does not serve MCP over the admin channel")

// StreamServer serves one MCP session over in and out until in ends or ctx
// is cancelled (server.Server.ServeStream).
type StreamServer func(ctx context.Context, in io.Reader, out io.Writer) error

const mcpProtocol = "mcpvec-mcp"

func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) {
	if err := s.checkLibrary(r.Header.Get(headerLibrary)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if s.mcp == nil {
		http.Error(w, ErrNoMCP.Error(), http.StatusNotImplemented)
		return
	}
	if r.Header.Get("Upgrade") != mcpProtocol {
		http.Error(w, "want Upgrade: "+mcpProtocol, http.StatusUpgradeRequired)
		return
	}
	if !s.startRunner() {
		http.Error(w, "server is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.wg.Done()
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.log.Warn("admin mcp: hijack", "err", err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Time{})
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + mcpProtocol + "\r\n\r\n")
	if rw.Flush() != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.base)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // unblocks the session's reads
	defer stop()
	s.log.Info("admin mcp session started")
	start := time.Now()
	out := &deadlineWriter{conn: conn, timeout: s.writeTimeout}
	if err := s.mcp(ctx, rw.Reader, out); err != nil && ctx.Err() == nil {
		s.log.Warn("admin mcp session ended", "err", err)
	}
	s.log.Info("admin mcp session done", "took", time.Since(start).Round(time.Millisecond))
}

// deadlineWriter fails a write that makes no progress within timeout, so a
// client that stops reading cannot hold a session's writers forever.
type deadlineWriter struct {
	conn    net.Conn
	timeout time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if err := d.conn.SetWriteDeadline(time.Now().Add(d.timeout)); err != nil {
		return 0, err
	}
	return d.conn.Write(p)
}

// MCP hands an MCP session to the server: lines read from in go to its MCP
// handler, its answers are written to out. When in ends the server's side
// is told (a half-close), and MCP returns once the server has ended the
// session (requests still running are cancelled, as a stdio server does
// when its stdin closes). When ctx is cancelled the connection is closed.
// Errors: ErrNoServer, ErrInsecureSocket, ErrWrongLibrary, ErrNoMCP,
// ErrProtocol (a refusal), a broken connection, or ctx's error. out is
// written from one goroutine.
func (c *Client) MCP(ctx context.Context, in io.Reader, out io.Writer) error {
	conn, br, err := c.upgrade(ctx)
	if err != nil {
		return fmt.Errorf("admin mcp: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	go func() {
		io.Copy(conn, in)
		if hc, ok := conn.(interface{ CloseWrite() error }); ok {
			hc.CloseWrite()
		} else {
			conn.Close()
		}
	}()
	_, err = io.Copy(out, br)
	if ctx.Err() != nil {
		return fmt.Errorf("admin mcp: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("admin mcp: %w", err)
	}
	return nil
}

// upgrade opens a connection and switches it to an MCP session.
func (c *Client) upgrade(ctx context.Context) (net.Conn, *bufio.Reader, error) {
	conn, err := dialSocket(ctx, c.path)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/v1/mcp", nil)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	req.Header.Set(headerLibrary, c.library)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", mcpProtocol)
	conn.SetDeadline(time.Now().Add(requestTimeout))
	br := bufio.NewReader(conn)
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	conn.SetDeadline(time.Time{})
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotImplemented {
			return nil, nil, ErrNoMCP
		}
		return nil, nil, refusal(resp)
	}
	return conn, br, nil
}
