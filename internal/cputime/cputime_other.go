//go:build !unix

package cputime

import "time"

// Process is 0: not read on this system.
func Process() time.Duration { return 0 }

// Children is 0: not read on this system.
func Children() time.Duration { return 0 }
