// Package loopback says whether a host names this machine's loopback
// interface, so that the server's host guard and the OAuth server's rules for
// redirect and metadata URLs decide it the same way.
package loopback

import (
	"net/netip"
	"strings"
)

// Host reports whether host (no port; IPv6 brackets allowed) is localhost,
// in any case, or a loopback IP address. It is safe for concurrent use.
func Host(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
