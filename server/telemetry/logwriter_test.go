package telemetry

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckWriter blocks every Write until release is closed, and keeps what it
// was given.
type stuckWriter struct {
	release chan struct{}
	mu      sync.Mutex
	b       bytes.Buffer
	writes  int
}

func (s *stuckWriter) Write(p []byte) (int, error) {
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *stuckWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogWriterKeepsWritesOffTheCaller: while the writer behind it is stuck
// (a descheduled thread, a full pipe), lines written from many goroutines
// still return at once; once it moves, every line arrives whole, each
// goroutine's in order, in fewer writes than lines; Flush and Close wait for
// them.
func TestLogWriterKeepsWritesOffTheCaller(t *testing.T) {
	sw := &stuckWriter{release: make(chan struct{})}
	l := NewLogWriter(sw)
	const writers, lines = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(l, "w%d line %d\n", w, i)
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("writes waited for the stuck writer")
	}
	close(sw.release)
	l.Flush()
	got := sw.String()
	if n := strings.Count(got, "\n"); n != writers*lines {
		t.Fatalf("%d lines after Flush, want %d", n, writers*lines)
	}
	next := make([]int, writers)
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%d line %d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("line %q out of order or torn (want w%d line %d)", line, w, next[w])
		}
		next[w]++
	}
	if sw.writes >= writers*lines {
		t.Errorf("%d writes for %d lines: none were gathered", sw.writes, writers*lines)
	}
	l.Close()
	fmt.Fprintln(l, "after close")
	if !strings.HasSuffix(sw.String(), "after close\n") {
		t.Error("a write after Close was not passed on")
	}
}

// TestLogWriterBoundsPending: past maxPending bytes waiting, Write waits for
// the writer behind it instead of holding more.
func TestLogWriterBoundsPending(t *testing.T) {
	sw := &stuckWriter{release: make(chan struct{})}
	l := NewLogWriter(sw)
	defer l.Close()
	line := bytes.Repeat([]byte("x"), 64<<10)
	wrote := make(chan int, 64)
	go func() {
		for i := range 40 { // 2.5 MB
			l.Write(line)
			wrote <- i
		}
	}()
	time.Sleep(200 * time.Millisecond)
	if n := len(wrote); n > (2*maxPending)/len(line)+1 {
		t.Fatalf("%d writes of 64 KiB returned with the writer stuck: pending is not bounded", n)
	}
	close(sw.release)
	for range 40 {
		<-wrote
	}
	l.Flush()
	if got := len(sw.String()); got != 40*len(line) {
		t.Fatalf("%d bytes passed on, want %d", got, 40*len(line))
	}
}
