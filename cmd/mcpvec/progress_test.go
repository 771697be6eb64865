package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
)

// TestTerminalProgressLine: the ingest progress line cmd draws from
// ingest's progress reports, byte for byte as ingest drew it before it
// reported them, redrawn while a run goes on and cleared at its end; a
// second run (sync's next folder) starts it afresh.
func TestTerminalProgressLine(t *testing.T) {
	var out synctest.Buffer // safe for the redrawing goroutine
	clock := time.Unix(1000, 0)
	var clockMu sync.Mutex
	now := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	p := &progressLine{w: &out, note: func() string { return "  embedded 4 (2/s)" }, now: now}
	for run := range 2 {
		p.report(ingest.Progress{Total: 2})
		p.report(ingest.Progress{Files: 1, Total: 2, Pages: 3, Passages: 10})
		clockMu.Lock()
		clock = clock.Add(2 * time.Second)
		clockMu.Unlock()
		p.mu.Lock()
		got := p.line()
		p.mu.Unlock()
		if want := "\r\033[Kfiles 1/2  pages 3  passages 10  1.5 pages/s  5 passages/s  embedded 4 (2/s)"; got != want {
			t.Fatalf("run %d: line %q, want %q", run, got, want)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), got) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		before := out.String()
		p.report(ingest.Progress{Files: 2, Total: 2, Pages: 4, Passages: 12, Done: true})
		after := out.String()
		if !strings.Contains(before, got) || !strings.HasSuffix(after, "\r\033[K") || strings.Count(after, "\r\033[K") != strings.Count(before, "\r\033[K")+1 {
			t.Fatalf("run %d: output %q, then %q: want the line redrawn, then cleared once", run, before, after)
		}
		time.Sleep(2 * progressEvery)
		if out.String() != after {
			t.Fatalf("run %d: drawn after the run ended: %q", run, out.String())
		}
	}
	if newProgressLine(nil, nil) != nil {
		t.Fatal("a progress func without a terminal")
	}
}
