package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestRangesCoversEachIndexOnce: every index of [0, n) is visited exactly
// once, whatever the range size and CPU count.
func TestRangesCoversEachIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, size int }{{0, 3}, {1, 3}, {10, 3}, {1000, 7}, {1000, 1000}, {5, 0}} {
			seen := make([]atomic.Int32, c.n)
			Ranges(c.n, c.size, func(lo, hi int) {
				if lo >= hi || hi > c.n {
					t.Errorf("n %d size %d: range [%d, %d)", c.n, c.size, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if v := seen[i].Load(); v != 1 {
					t.Fatalf("procs %d n %d size %d: index %d visited %d times", procs, c.n, c.size, i, v)
				}
			}
		}
	}
}
