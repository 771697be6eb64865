package server

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// limitListener caps the connections each client (client.KeyOf its remote
// address) holds open at once, in any phase: a connection beyond it is
// closed as soon as it is accepted, so one client cannot take every file
// descriptor with connections that send their headers slowly (which only
// ReadHeaderTimeout otherwise ends). Safe for concurrent use.
type limitListener struct {
	net.Listener
	gate    *client.Gate
	max     int
	log     *slog.Logger
	refused atomic.Int64
}

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := client.KeyOf(c.RemoteAddr().String())
		if l.gate.Acquire(key) {
			return &countedConn{Conn: c, release: func() { l.gate.Release(key) }}, nil
		}
		c.Close()
		if l.refused.Add(1)%1024 == 1 {
			l.log.Warn("closed connections: too many open from one client", "remote", c.RemoteAddr().String(),
				"max_conns_per_client", l.max, "refused", l.refused.Load())
		}
	}
}

// countedConn gives its slot back when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close implements net.Conn.
func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// SetWriteBuffer sets the socket's send buffer when it is a TCP socket.
func (c *countedConn) SetWriteBuffer(n int) error {
	if b, ok := c.Conn.(interface{ SetWriteBuffer(int) error }); ok {
		return b.SetWriteBuffer(n)
	}
	return nil
}
