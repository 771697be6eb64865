//go:build !unix

package childproc

import (
	"os"
)

// PageProbe is 0 (unknown): fresh pages are probed on Unix only.
func PageProbe() float64 { return 0 }

// PeakRSS is 0 (unknown): read on Unix only.
func PeakRSS(*os.ProcessState) int64 { return 0 }
