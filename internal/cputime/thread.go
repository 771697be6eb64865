//go:build linux || darwin || freebsd

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread is the CPU time of the calling OS thread; callers pin their
// goroutine with runtime.LockOSThread.
func Thread() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
