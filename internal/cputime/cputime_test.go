package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestCPUTimeGrowsWithWork: spinning on a pinned thread shows up in the
// thread's CPU time, and at least as much in the process's; Children never
// goes backwards.
func TestCPUTimeGrowsWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU clocks are checked on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0, c0 := Process(), Thread(), Children()
	x := 0
	for start := time.Now(); Thread()-t0 < 20*time.Millisecond; x++ {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the thread's CPU time grew %v in 10 s of spinning", Thread()-t0)
		}
	}
	th, p := Thread()-t0, Process()-p0
	if p < th-time.Millisecond {
		t.Fatalf("after %d rounds: process %v < thread %v", x, p, th)
	}
	if Children() < c0 {
		t.Fatal("children's CPU time went backwards")
	}
}
