// Package client names the client a request comes from, so that limits
// counted per client (web sign-ins, uploads, request bodies, SSE streams,
// MCP sessions) agree on who a client is.
package client

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// Key returns the client of r: its remote IP address, an IPv6 address
// reduced to its /64 (one host usually owns the whole block). A request
// from a loopback address that names a host other than loopback came
// through a tunnel (cloudflared, ngrok: they keep the public Host) and is
// keyed apart, "127.0.0.1 via HOST": behind a tunnel every stranger shares
// that one key, but none of them can use up the limits of the owner, who
// can always reach the server as http://127.0.0.1:PORT on the machine
// itself. A tunnel cannot send a loopback Host, since it routes by the
// public one. It is safe for concurrent use.
func Key(r *http.Request) string {
	k := KeyOf(r.RemoteAddr)
	if !loopbackPeer(r.RemoteAddr) {
		return k
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "" || loopback.Host(host) {
		return k
	}
	return k + " via " + strings.ToLower(host)
}

// loopbackPeer reports whether remote ("host:port") is a loopback address.
func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// KeyOf is Key for a remote address "host:port" (or a bare host).
func KeyOf(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// Gate counts what each client holds at once (open requests, streams,
// uploads) against a per-client cap and a global ceiling. The zero value
// is unusable; use NewGate. It is safe for concurrent use.
type Gate struct {
	perClient, total int

	mu   sync.Mutex
	held map[string]int
	n    int
}

// NewGate returns a Gate allowing perClient per client and total in all.
func NewGate(perClient, total int) *Gate {
	return &Gate{perClient: perClient, total: total, held: make(map[string]int)}
}

// Acquire takes one slot for key, reporting false (and taking nothing)
// when key or everyone together already holds the maximum. Each true must
// be matched by one Release.
func (g *Gate) Acquire(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] >= g.perClient || g.n >= g.total {
		return false
	}
	g.held[key]++
	g.n++
	return true
}

// Release gives back a slot Acquire took for key.
func (g *Gate) Release(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] <= 1 {
		delete(g.held, key)
	} else {
		g.held[key]--
	}
	g.n--
}

// Held returns how many slots key holds.
func (g *Gate) Held(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held[key]
}
