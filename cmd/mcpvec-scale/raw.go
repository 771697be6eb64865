package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"time"
)

// rawConn is one load client's HTTP/1.1 connection to serve: requests
// written whole from a prepared head, responses parsed by http.ReadResponse.
// It stands in for net/http's Transport in load phases because the load
// generator shares the two cores with serve: with the Transport (a
// goroutine hand-off each way, header maps, a pooled connection per
// request) the harness took 0.20–0.26 ms of CPU a call on a slow stretch of
// this project's machine, with rawConn 0.08–0.14 ms, CPU serve gets instead
// (docs/benchmarks/scale-1m.md#session-8); wrk and h2load are lean for the
// same reason. What it sends and checks is the same. Not safe for
// concurrent use: one per client.
type rawConn struct {
	addr string
	head []byte // request line and headers, up to the Content-Length value
	conn net.Conn
	br   *bufio.Reader
	out  []byte
	body bytes.Buffer
}

// newRawConn prepares a connection for POSTs to url in session sid; it
// dials on first use.
func newRawConn(url, sid string) (*rawConn, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\n"+
		"Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: ", u.RequestURI(), u.Host, sid)
	return &rawConn{addr: u.Host, head: []byte(head)}, nil
}

// maxBody is the longest response body post reads.
const maxBody = 4 << 20

// post sends body and returns the response's status and body (at most
// maxBody), within timeout. After an error the connection is closed, and the
// next post dials again.
func (r *rawConn) post(ctx context.Context, body string, timeout time.Duration) (int, []byte, error) {
	st, b, err := r.roundTrip(ctx, body, timeout)
	if err != nil {
		r.Close()
	}
	return st, b, err
}

func (r *rawConn) roundTrip(ctx context.Context, body string, timeout time.Duration) (int, []byte, error) {
	if r.conn == nil {
		d := net.Dialer{Timeout: timeout}
		c, err := d.DialContext(ctx, "tcp", r.addr)
		if err != nil {
			return 0, nil, err
		}
		r.conn, r.br = c, bufio.NewReaderSize(c, 32<<10)
	}
	if err := r.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, nil, err
	}
	r.out = append(append(r.out[:0], r.head...), strconv.Itoa(len(body))...)
	r.out = append(append(r.out, "\r\n\r\n"...), body...)
	if _, err := r.conn.Write(r.out); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		return 0, nil, err
	}
	r.body.Reset()
	_, err = r.body.ReadFrom(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if err == nil && r.body.Len() > maxBody {
		err = fmt.Errorf("response longer than %d bytes", maxBody)
	}
	if err == nil && resp.Close {
		r.Close() // the server ends the connection: dial again next time
	}
	return resp.StatusCode, r.body.Bytes(), err
}

// Close closes the connection, if open.
func (r *rawConn) Close() {
	if r.conn != nil {
		r.conn.Close()
		r.conn, r.br = nil, nil
	}
}
