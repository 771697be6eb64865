package telemetry

import (
	"io"
	"sync"
	"time"
)

// maxPending is how many bytes a LogWriter holds before Write waits for
// its goroutine to catch up.
const maxPending = 1 << 20

// gather is how long a LogWriter's goroutine lets lines gather after the
// first before it writes them: waking it for every line would cost the
// CPU a write saves.
const gather = 10 * time.Millisecond

// LogWriter passes what is written to it on to another writer from a
// goroutine of its own, in order, several writes in one when they come
// faster than that writer takes them (a line waits at most ~10 ms). It keeps the log's write system
// call, and its lock, off the path of the requests that log: with
// log/slog writing straight to stderr, every access line was a write made
// under the handler's lock, and on a busy host a thread descheduled in it
// held up every other request that logged (serve's mutex waits at 16
// clients were 45% the access log's; docs/benchmarks/serving-overhead.md,
// session 22). A Write waits only when a megabyte is pending. What was
// written but not passed on when the process dies of a crash is lost; Close
// and Flush pass everything on. Errors of the other writer are dropped, as
// log/slog drops them. It is safe for concurrent use.
type LogWriter struct {
	w    io.Writer
	mu   sync.Mutex
	work sync.Cond // signalled when there is something to write, or on Close
	room sync.Cond // broadcast when a write is done
	// pending is what waits for the goroutine; spare is the buffer it
	// last wrote, for reuse.
	pending, spare  []byte
	queued, written int64 // bytes taken by Write, and passed on
	closed          bool
	done            chan struct{}
}

// NewLogWriter returns a LogWriter writing to w, and starts its goroutine;
// Close ends it.
func NewLogWriter(w io.Writer) *LogWriter {
	l := &LogWriter{w: w, done: make(chan struct{})}
	l.work.L, l.room.L = &l.mu, &l.mu
	go l.run()
	return l
}

// Write takes p to be written on; it returns len(p) and nil. After Close
// it writes p on itself.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.closed && len(l.pending) > 0 && len(l.pending)+len(p) > maxPending {
		l.room.Wait()
	}
	if l.closed {
		l.drainedLocked()
		return l.w.Write(p)
	}
	l.pending = append(l.pending, p...)
	l.queued += int64(len(p))
	l.work.Signal()
	return len(p), nil
}

// Flush returns once everything written before it has been passed on.
func (l *LogWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drainedLocked()
}

// drainedLocked waits, holding mu, until everything queued was passed on.
func (l *LogWriter) drainedLocked() {
	for target := l.queued; l.written < target; {
		l.room.Wait()
	}
}

// Close passes everything written on and ends the goroutine; later writes
// go straight through. It returns nil.
func (l *LogWriter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.work.Signal()
	l.mu.Unlock()
	<-l.done
	return nil
}

// run passes pending bytes on, all that have gathered in one write, until
// Close.
func (l *LogWriter) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.pending) == 0 && !l.closed {
			l.work.Wait()
		}
		if len(l.pending) == 0 {
			l.mu.Unlock()
			return // closed, and nothing left
		}
		closed := l.closed
		l.mu.Unlock()
		if !closed {
			time.Sleep(gather) // let the lines of the next moments join these
		}
		l.mu.Lock()
		buf := l.pending
		l.pending, l.spare = l.spare[:0], nil
		l.mu.Unlock()
		_, _ = l.w.Write(buf)
		l.mu.Lock()
		l.written += int64(len(buf))
		if cap(buf) <= maxPending {
			l.spare = buf
		}
		l.room.Broadcast()
		l.mu.Unlock()
	}
}
