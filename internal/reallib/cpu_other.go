//go:build !unix

package reallib

import "time"

// processCPU is 0 (unknown): the process's CPU time is read on Unix only,
// so cpu-ns/op reads 0 elsewhere.
func processCPU() time.Duration { return 0 }
