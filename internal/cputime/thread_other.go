//go:build !linux && !darwin && !freebsd

package cputime

import "time"

// Thread is 0: this system has no per-thread CPU clock here.
func Thread() time.Duration { return 0 }
