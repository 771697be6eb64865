package ingest

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress redraws one status line on a terminal every few hundred
// milliseconds; with a nil writer it does nothing.
type progress struct {
	w                   io.Writer
	note                func() string
	total               int
	mu                  sync.Mutex
	files, pages, parts int
	start               time.Time
	done                chan struct{}
	wg                  sync.WaitGroup
}

func newProgress(w io.Writer, note func() string, total int) *progress {
	p := &progress{w: w, note: note, total: total, start: time.Now(), done: make(chan struct{})}
	if w == nil {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) add(pages, chunks int) {
	p.mu.Lock()
	p.files++
	p.pages += pages
	p.parts += chunks
	p.mu.Unlock()
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	secs := time.Since(p.start).Seconds()
	line := fmt.Sprintf("\r\033[Kfiles %d/%d  pages %d  passages %d  %.1f pages/s  %.0f passages/s",
		p.files, p.total, p.pages, p.parts, float64(p.pages)/secs, float64(p.parts)/secs)
	if p.note != nil {
		line += p.note()
	}
	io.WriteString(p.w, line)
}

func (p *progress) stop() {
	if p.w == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
	fmt.Fprint(p.w, "\r\033[K")
}
