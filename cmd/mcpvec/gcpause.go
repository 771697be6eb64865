package main

import (
	"runtime/debug"
	"sync"
	"time"
)

// Opening a library with its garbage collector paused. Loading the
// indexes allocates mostly what they keep (passage rows, posting-list
// headers, the dictionary), so the collections an open set off as its heap
// doubled from 4 MB to a few hundred found nothing to free and scanned the
// passage rows each time: at a million passages a third of serve's CPU to
// ready, ready 0.89-1.07 s against 0.60-0.69 s with the collector off
// (docs/benchmarks/serve-1m.md#s25).

// openGCLimit is the heap at which a paused collector runs anyway, and
// openGCPause the longest it stays paused: an open that rebuilds an index
// from the store (a damaged or outdated one) allocates garbage for minutes
// and gets the collector back.
const (
	openGCLimit = 1 << 30
	openGCPause = 5 * time.Second
)

// pauseGC turns the garbage collector off until the returned restore is
// called, the heap reaches limit (or the memory limit set before, when
// lower), or d has passed, whichever comes first; then the collector's
// settings are those before. Pauses may overlap (libraries opened at
// once): the collector stays off until the last one ends, and the
// settings come back from before the first. restore may be called more
// than once, from any goroutine.
func pauseGC(limit int64, d time.Duration) (restore func()) {
	gcPause.mu.Lock()
	if gcPause.n == 0 {
		gcPause.percent = debug.SetGCPercent(-1)
		gcPause.limit = debug.SetMemoryLimit(-1)
		debug.SetMemoryLimit(min(gcPause.limit, limit))
	}
	gcPause.n++
	gcPause.mu.Unlock()
	var once sync.Once
	back := func() {
		once.Do(func() {
			gcPause.mu.Lock()
			defer gcPause.mu.Unlock()
			if gcPause.n--; gcPause.n == 0 {
				debug.SetGCPercent(gcPause.percent)
				debug.SetMemoryLimit(gcPause.limit)
			}
		})
	}
	t := time.AfterFunc(d, back)
	return func() {
		t.Stop()
		back()
	}
}

// gcPause is what the pauses under way share: how many there are, and the
// collector's settings from before the first.
var gcPause struct {
	mu      sync.Mutex
	n       int
	percent int
	limit   int64
}
