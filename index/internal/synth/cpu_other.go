//go:build !linux

package synth

import "time"

// ThreadCPU is 0 outside Linux: CPU percentiles then read 0.
func ThreadCPU() time.Duration { return 0 }

// ProcessCPU is 0 outside Linux.
func ProcessCPU() time.Duration { return 0 }
