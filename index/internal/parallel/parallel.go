// Package parallel runs a loop over an index range on all CPUs, for the
// index packages' loads and builds.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Ranges calls fn over [0, n) cut into consecutive ranges of size items
// (the last may be shorter), on up to GOMAXPROCS goroutines that take the
// next range as they finish one, and returns when all are done. With one
// range or one CPU it calls fn(0, n) on the caller's goroutine. fn must be
// safe to call concurrently on disjoint ranges.
func Ranges(n, size int, fn func(lo, hi int)) {
	size = max(size, 1)
	workers := min(runtime.GOMAXPROCS(0), (n+size-1)/size)
	if workers < 2 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(size))) - size
				if lo >= n {
					return
				}
				fn(lo, min(lo+size, n))
			}
		}()
	}
	wg.Wait()
}
