//go:build unix

package extract

import (
	"syscall"
	"time"
)

// childCPU is the CPU time used by finished child processes (tesseract),
// which unlike wall time does not depend on how busy the machine is.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfCPU is the CPU time of this process (pdfium rendering, PNG
// encoding, Go), for the same reason.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
