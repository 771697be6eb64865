package ollama

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultBaseURL is where Ollama listens unless told otherwise.
const DefaultBaseURL = "http://127.0.0.1:11434"

// defaultPort is Ollama's port when an address names none and no scheme.
const defaultPort = "11434"

// BaseURL turns an address in the forms Ollama's OLLAMA_HOST takes into
// the base URL to connect to: "" is DefaultBaseURL; "host", "host:port",
// ":port", "[::1]:port" and "0.0.0.0" are http on port 11434 unless one is
// given; "http://host" and "https://host" default to ports 80 and 443, as
// Ollama's own client does. An unspecified address (0.0.0.0, ::, or no
// host), where a server listens on every interface, means this machine,
// 127.0.0.1. A trailing /v1 or /api (the OpenAI-compatible endpoint's base,
// or the native API's) is dropped. Errors wrap ErrConfig.
func BaseURL(addr string) (string, error) {
	s := strings.TrimSpace(addr)
	if s == "" {
		return DefaultBaseURL, nil
	}
	scheme, rest, found := strings.Cut(s, "://")
	port := defaultPort
	switch scheme = strings.ToLower(scheme); {
	case !found:
		scheme, rest = "http", s
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return "", fmt.Errorf("%w: ollama address %q: scheme must be http or https", ErrConfig, addr)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	} else {
		port = p
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%w: ollama address %q: bad port %q", ErrConfig, addr, port)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return joinBase(addr, scheme, net.JoinHostPort(host, port), path)
}

// joinBase builds scheme://hostport/path without a trailing slash, /v1 or
// /api, checking that it parses with a host and no credentials.
func joinBase(addr, scheme, hostport, path string) (string, error) {
	path = strings.Trim(path, "/")
	for _, tail := range []string{"v1", "api"} {
		if path == tail || strings.HasSuffix(path, "/"+tail) {
			path = strings.Trim(strings.TrimSuffix(path, tail), "/")
		}
	}
	out := scheme + "://" + hostport
	if path != "" {
		out += "/" + path
	}
	u, err := url.Parse(out)
	if err != nil || u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: ollama address %q: want host[:port] or http(s)://host[:port][/path]", ErrConfig, addr)
	}
	return out, nil
}
