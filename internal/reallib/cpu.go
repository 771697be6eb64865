package reallib

import (
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/internal/cputime"
)

// CPU is a benchmark's process CPU time at its start.
type CPU time.Duration

// StartCPU reads the process's CPU time (user and system, all threads);
// call it just before b.Loop.
func StartCPU() CPU { return CPU(cputime.Process()) }

// Report reports the process CPU time per op since c as cpu-ns/op: on a
// shared machine wall time mostly measures the other processes (and on a
// virtual one the time the host takes away), CPU time far less. Call it
// after b.Loop.
func (c CPU) Report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(cputime.Process()-time.Duration(c))/float64(b.N), "cpu-ns/op")
	}
}
