//go:build !unix

package extract

import "time"

// childCPU is not measured on this system.
func childCPU() time.Duration { return 0 }

// selfCPU is not measured on this system.
func selfCPU() time.Duration { return 0 }
