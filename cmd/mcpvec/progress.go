package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 250 * time.Millisecond

// progressLine draws ingest's progress (ingest.Options.Progress) as one
// status line on a terminal, redrawn every progressEvery while a run goes
// on and cleared when it ends; an optional note (embedding throughput) is
// appended to it. A sync runs ingest once per folder: each run starts the
// line afresh. Its methods are safe for concurrent use.
type progressLine struct {
	w    io.Writer
	note func() string // nil: none
	now  func() time.Time

	mu    sync.Mutex
	at    ingest.Progress
	start time.Time
	stop  chan struct{} // non-nil while a run is drawn
	wg    sync.WaitGroup
}

// newProgressLine returns the ingest.Options.Progress func that draws on
// w, nil (no progress) when w is nil.
func newProgressLine(w io.Writer, note func() string) func(ingest.Progress) {
	if w == nil {
		return nil
	}
	p := &progressLine{w: w, note: note, now: time.Now}
	return p.report
}

// report takes a progress event: the first of a run starts the redraws,
// the last (Done) stops them and clears the line.
func (p *progressLine) report(at ingest.Progress) {
	p.mu.Lock()
	p.at = at
	if p.stop == nil && !at.Done {
		p.start, p.stop = p.now(), make(chan struct{})
		p.wg.Add(1)
		go p.redraw(p.stop)
	}
	stop := p.stop
	if at.Done {
		p.stop = nil
	}
	p.mu.Unlock()
	if at.Done && stop != nil {
		close(stop)
		p.wg.Wait()
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// redraw draws the line every progressEvery until stop is closed.
func (p *progressLine) redraw(stop chan struct{}) {
	defer p.wg.Done()
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// draw writes the line over the previous one.
func (p *progressLine) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, p.line())
}

// line is the status line as it stands; callers hold mu.
func (p *progressLine) line() string {
	secs := p.now().Sub(p.start).Seconds()
	s := fmt.Sprintf("\r\033[Kfiles %d/%d  pages %d  passages %d  %.1f pages/s  %.0f passages/s",
		p.at.Files, p.at.Total, p.at.Pages, p.at.Passages, float64(p.at.Pages)/secs, float64(p.at.Passages)/secs)
	if p.note != nil {
		s += p.note()
	}
	return s
}
