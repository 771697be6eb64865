package admin

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// maxQueued bounds the frames a command may have waiting for its client
// (each at most maxChunk bytes, so at most 2 MiB).
const maxQueued = 64

var errRunnerReturned = errors.New("admin output closed: command returned")

// output carries one command's frames from its Runner to the client through
// a bounded queue, so a slow client slows the command down but a stalled
// one (see pump) cannot block it forever.
type output struct {
	mu      sync.Mutex // serialises Runner writes; held across a blocking send
	stopped bool       // the Runner returned: further writes fail
	frames  chan []byte
	dead    chan struct{} // closed once the client is gone or stalled
	deadErr error         // set before dead is closed
}

func newOutput() *output {
	return &output{frames: make(chan []byte, maxQueued), dead: make(chan struct{})}
}

// write queues p as frames of kind. It blocks while the queue is full and
// fails once the client is gone or the Runner returned.
func (o *output) write(kind byte, p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return 0, errRunnerReturned
	}
	n := 0
	for n < len(p) {
		end := min(n+maxChunk, len(p))
		select {
		case o.frames <- appendFrame(nil, kind, p[n:end]):
		case <-o.dead:
			return n, o.deadErr
		}
		n = end
	}
	return n, nil
}

// stop is called once the Runner returned: pump ends after the queued
// frames.
func (o *output) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopped = true
	close(o.frames)
}

// pump sends queued frames to the client until stop. When a write fails
// (the client hung up, or made no progress before the deadline) it marks
// the output dead, so blocked and later writes fail at once, and returns
// the error.
func (o *output) pump(sw *streamWriter) error {
	for f := range o.frames {
		if err := sw.write(f); err != nil {
			o.deadErr = fmt.Errorf("admin client gone: %w", err)
			close(o.dead)
			return o.deadErr
		}
	}
	return nil
}

// stream is the io.Writer a Runner gets for stdout or stderr.
type stream struct {
	out  *output
	kind byte
}

// Write sends p to the client. It is safe for concurrent use.
func (s stream) Write(p []byte) (int, error) { return s.out.write(s.kind, p) }

// streamWriter writes encoded frames to the response, each flushed and
// bounded by a write deadline.
type streamWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (sw *streamWriter) write(frame []byte) error {
	if err := sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout)); err != nil {
		return fmt.Errorf("set write deadline: %w", err)
	}
	if _, err := sw.w.Write(frame); err != nil {
		return err
	}
	return sw.rc.Flush()
}

// send writes one frame of kind.
func (sw *streamWriter) send(kind byte, payload string) error {
	return sw.write(appendFrame(nil, kind, []byte(payload)))
}
