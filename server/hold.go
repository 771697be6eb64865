package server

import (
	"mime"
	"net/http"
	"strconv"
)

// maxHeld caps the response body a deadlineWriter holds; a longer one is
// sent on as it comes, chunked.
const maxHeld = 1 << 20

// A streamable HTTP POST is answered by one JSON object that mcp-go writes
// in one Write and never flushes. Passed on as it is, net/http sends it
// chunked, a search's 14 KB in three write system calls (the header with
// the first 4 KB, the rest, then the last chunk when the handler returns),
// and the client parses the chunk framing. Held until the handler returns,
// it goes out with a Content-Length in two, unframed. A response that is
// not JSON (a text/event-stream, an error in plain text), one that is
// flushed, and one longer than maxHeld are passed on as before; the bytes
// of the body are the same either way.

// WriteHeader implements http.ResponseWriter. On a POST (hold set), the
// first call decides whether the response is held: a JSON response with a
// body and no Content-Length is.
func (d *deadlineWriter) WriteHeader(code int) {
	if d.hold {
		d.hold = false
		if holdable(d.Header(), code) {
			d.status = code
			return
		}
	} else if d.status != 0 && d.release() != nil {
		return
	}
	d.ResponseWriter.WriteHeader(code)
}

// holdable reports whether a response of status code with header h may be
// held: a JSON body whose length is not set yet.
func holdable(h http.Header, code int) bool {
	if code < 200 || code == http.StatusNoContent || code == http.StatusNotModified || h.Get("Content-Length") != "" {
		return false
	}
	ct := h.Get("Content-Type")
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// keep adds q, the next part of a held body, to it, and reports whether it
// did (false when the body would outgrow maxHeld). owned says that q is the
// writer's own (a splice's output, from getBuf) and may be kept without a
// copy; kept or copied, keep then owns it. The held body is always the
// writer's own: release gives it to putBuf.
func (d *deadlineWriter) keep(q []byte, owned bool) bool {
	if len(d.held)+len(q) > maxHeld {
		return false
	}
	switch {
	case owned && d.held == nil:
		d.held = q
	case owned:
		d.held = append(d.held, q...)
		putBuf(q)
	default:
		d.held = append(d.held, q...)
	}
	return true
}

// release sends the held header and body on and ends the holding; it
// returns the error of the write.
func (d *deadlineWriter) release() error {
	code, body := d.status, d.held
	d.status, d.held = 0, nil
	d.ResponseWriter.WriteHeader(code)
	if len(body) == 0 {
		return nil
	}
	d.arm()
	_, err := d.ResponseWriter.Write(body)
	putBuf(body) // a Write does not keep what it is given
	if err != nil {
		d.fail()
	}
	return err
}

// finish sends a held response with its Content-Length, once the handler
// has returned (a panic leaves it unsent, so the client gets the 500).
func (d *deadlineWriter) finish() {
	d.hold = false
	if d.status == 0 {
		return
	}
	d.Header().Set("Content-Length", strconv.Itoa(len(d.held)))
	d.release()
}
