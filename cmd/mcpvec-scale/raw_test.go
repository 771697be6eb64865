package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRawConn checks the load clients' hand-written HTTP/1.1 against a
// real net/http server: the request it sends, fixed-length and chunked
// answers, a server that closes the connection, and an answer too long.
func TestRawConn(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/k/mcp" || r.Header.Get("Mcp-Session-Id") != "sid-1" ||
			r.Header.Get("Content-Type") != "application/json" || r.ContentLength != int64(len(body)) {
			http.Error(w, "bad request: "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		switch string(body) {
		case "chunked":
			w.Write([]byte("part one, "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
		case "close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		case "long":
			w.Write([]byte(strings.Repeat("x", maxBody+1)))
		default:
			w.Write(append([]byte("echo "), body...))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	rc, err := newRawConn(srv.URL+"/k/mcp", "sid-1")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx := context.Background()
	want := func(body string, status int, answer string) {
		t.Helper()
		st, b, err := rc.post(ctx, body, 5*time.Second)
		if err != nil || st != status || string(b) != answer {
			t.Fatalf("post %q: %d %q %v; want %d %q", body, st, b, err, status, answer)
		}
	}
	want(`{"a":1}`, 200, `echo {"a":1}`)
	want("chunked", 200, "part one, part two")
	want("über", 200, "echo über") // Content-Length counts bytes
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for three calls, want 1 kept alive", n)
	}
	want("close", 200, "bye")
	want("again", 200, "echo again")
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections after the server closed one, want 2", n)
	}
	if _, _, err := rc.post(ctx, "long", 5*time.Second); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("answer over maxBody: %v, want an error", err)
	}
	want("after", 200, "echo after")
	other, _ := newRawConn(srv.URL+"/k/mcp", "sid-2")
	defer other.Close()
	if st, _, err := other.post(ctx, "x", 5*time.Second); err != nil || st != http.StatusBadRequest {
		t.Fatalf("wrong session: %d %v, want 400", st, err)
	}
}

// TestSearchOnceBothClients: searchOnce judges an answer the same through
// net/http's client and through rawConn — a result passes; a tool error,
// an answer without a result and a bad status fail.
func TestSearchOnceBothClients(t *testing.T) {
	answer := map[string]string{
		"ok":     `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"results":[]}}}`,
		"tool":   `{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}`,
		"nores":  `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no"}}`,
		"status": "",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for q, a := range answer {
			if strings.Contains(string(body), `"query":"`+q+`"`) {
				if a == "" {
					http.Error(w, "no session", http.StatusNotFound)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, a)
				return
			}
		}
		http.Error(w, "unexpected", http.StatusBadRequest)
	}))
	defer srv.Close()
	c := &http.Client{Timeout: 5 * time.Second}
	rc, err := newRawConn(srv.URL+"/mcp", "sid")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	raw := func(ctx context.Context, body string) (int, []byte, error) { return rc.post(ctx, body, 5*time.Second) }
	for name, post := range map[string]poster{"net": netPost(c, srv.URL+"/mcp", "sid"), "raw": raw} {
		for q := range answer {
			err := searchOnce(context.Background(), post, 0, q)
			if (q == "ok") != (err == nil) {
				t.Errorf("%s client, answer %q: err %v", name, q, err)
			}
		}
	}
}
