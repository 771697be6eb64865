//go:build !linux

package childproc

import "time"

// threadCPU is 0 (unknown): a thread's CPU time is read on Linux only.
func threadCPU() time.Duration { return 0 }
