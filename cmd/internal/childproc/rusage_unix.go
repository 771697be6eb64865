//go:build unix

package childproc

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// PageProbe maps 64 MB of fresh anonymous memory, writes one byte in each
// 4 KB page and returns the wall time per page in microseconds (0 if the
// map fails). A page is zeroed by the kernel at its first touch: ~0.2–0.5
// µs on bare metal, but a VM whose host reclaims the guest's free memory
// (a balloon's free page reporting) faults it in from the host again, and
// measured 10–15 µs here some days. Every byte a process allocates and
// touches for the first time pays it: at a million passages serve's ~1.2
// GB of index is ~300,000 pages, so ready time swings by seconds with it.
func PageProbe() float64 {
	b, err := syscall.Mmap(-1, 0, pageProbeBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(b)
	start := time.Now()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return float64(time.Since(start).Nanoseconds()) / 1000 / float64(len(b)/4096)
}

// PeakRSS is the largest resident set of an ended process, in bytes (0 where
// unknown).
func PeakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there, KiB elsewhere
	}
	return int64(ru.Maxrss) << 10
}
