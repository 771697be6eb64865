//go:build linux || darwin || freebsd

package synth

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time the calling OS thread has used; callers pin
// their goroutine with runtime.LockOSThread. On a machine shared with other
// work it times a query without the time spent waiting for a core.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// ProcessCPU is the CPU time (user and system) the process has used.
func ProcessCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
