//go:build unix

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Process is the CPU time this process has used, all threads.
func Process() time.Duration { return rusage(unix.RUSAGE_SELF) }

// Children is the CPU time of this process's children that have ended and
// been waited for, so far.
func Children() time.Duration { return rusage(unix.RUSAGE_CHILDREN) }

func rusage(who int) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
