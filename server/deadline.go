package server

import (
	"errors"
	"net/http"
	"sync"
	"time"
)

// Defaults for the connection deadlines; see Options.
const (
	DefaultWriteTimeout = 30 * time.Second
	DefaultBodyTimeout  = 30 * time.Second
)

// deadlineWriter gives every Write and Flush of a response its own write
// deadline, so a client that stops reading is cut off after WriteTimeout
// while a long-lived stream that keeps being read lives on. onFail, when
// set, is called once on the first failed write (the stream is dead).
// It is as safe for concurrent use as the ResponseWriter it wraps.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	onFail  func()
	once    sync.Once
	splice  *splice // nil but on a streamable HTTP POST
	// hold is set, on a streamable HTTP POST, until the header is decided:
	// a JSON response is then held whole (see hold.go).
	hold   bool
	status int    // the status of the held response; 0 when none is held
	held   []byte // the held body
}

// withWriteDeadline wraps w in a deadlineWriter; onFail may be nil.
func (s *Server) withWriteDeadline(w http.ResponseWriter, onFail func()) *deadlineWriter {
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.opts.WriteTimeout, onFail: onFail}
}

func (d *deadlineWriter) arm() {
	// ErrNotSupported (a test recorder) just means no deadline.
	if err := d.rc.SetWriteDeadline(time.Now().Add(d.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		d.fail()
	}
}

func (d *deadlineWriter) fail() {
	if d.onFail != nil {
		d.once.Do(d.onFail)
	}
}

// Write implements http.ResponseWriter with a fresh deadline.
func (d *deadlineWriter) Write(p []byte) (int, error) {
	if d.hold {
		d.WriteHeader(http.StatusOK)
	}
	q, spliced := p, false
	if d.splice != nil {
		q, spliced = d.splice.apply(p)
	}
	if d.status != 0 {
		if d.keep(q, spliced) {
			return len(p), nil
		}
		if err := d.release(); err != nil {
			return 0, err
		}
	}
	d.arm()
	n, err := d.ResponseWriter.Write(q)
	if spliced {
		putBuf(q) // a Write does not keep what it is given
	}
	if err != nil {
		d.fail()
	} else if spliced {
		n = len(p)
	}
	return n, err
}

// Flush implements http.Flusher with a fresh deadline. It sends a held
// response on, and ends the holding.
func (d *deadlineWriter) Flush() {
	d.hold = false
	if d.status != 0 && d.release() != nil {
		return
	}
	d.arm()
	if err := d.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		d.fail()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
