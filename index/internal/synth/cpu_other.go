//go:build !linux && !darwin && !freebsd

package synth

import "time"

// ThreadCPU is 0 on systems without a per-thread CPU clock: CPU percentiles then read 0.
func ThreadCPU() time.Duration { return 0 }

// ProcessCPU is 0 on systems without getrusage.
func ProcessCPU() time.Duration { return 0 }
