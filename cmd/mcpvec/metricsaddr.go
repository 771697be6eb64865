package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server"
)

// serveMetrics serves h at /metrics on its own listener at addr (serve
// --metrics-addr), behind the credential /mcp asks for: the token or an
// OAuth access token; without either, only a loopback address or
// --insecure-no-auth. The returned func closes the listener.
func serveMetrics(ctx context.Context, addr string, o *server.Options, h http.Handler) (stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: %w", addr, err)
	}
	if o.Token == "" && o.Auth == nil && !o.InsecureNoAuth && !isLoopbackHost(host) {
		return nil, errors.New("--metrics-addr on a non-loopback address needs --token (or --oauth, or --insecure-no-auth)")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsAuth(o, h))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics listener stopped", "err", err)
		}
	}()
	slog.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() { srv.Close() }, nil
}

// metricsAuth asks h's callers for the token, or an access token the
// OAuth server accepts, when either is set.
func metricsAuth(o *server.Options, h http.Handler) http.Handler {
	if o.Token == "" && o.Auth == nil {
		return h
	}
	want := sha256.Sum256([]byte(o.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		switch {
		case o.Token != "" && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], want[:]) == 1:
		case o.Auth != nil && authenticated(o.Auth, r):
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvec"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authenticated reports whether a accepts r's bearer token, whoever it was
// issued to.
func authenticated(a server.Authorizer, r *http.Request) bool {
	_, err := a.Authenticate(r)
	return err == nil
}
