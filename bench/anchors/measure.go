package main

import (
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// result is one engine's row: what building cost, what the index holds on
// disk, and each query's CPU time (the median of its rounds) and top 10 as
// passage numbers (lines of passages.tsv, 0-based).
type result struct {
	engine           string
	buildWall, build time.Duration // wall and CPU time of building (and saving)
	size             int64         // bytes on disk
	cpu              []time.Duration
	top              [][]int
	note             string
}

// processCPU is the CPU time of the whole process (every thread), to the
// nanosecond: the harness runs with GOMAXPROCS 1, so it is one thread's
// work plus the runtime's own (GC, which the engines' allocations cause).
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// timeBuild runs build and returns its wall and CPU time.
func timeBuild(build func() error) (wall, cpu time.Duration, err error) {
	w0, c0 := time.Now(), processCPU()
	err = build()
	return time.Since(w0), processCPU() - c0, err
}

// measure runs every query once to warm up, then rounds times, and keeps
// each query's median CPU time and its top 10 of the last round.
func measure(qs []query, rounds int, search func(q string) ([]int, error)) ([]time.Duration, [][]int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	times := make([][]time.Duration, len(qs))
	top := make([][]int, len(qs))
	for r := -1; r < rounds; r++ {
		for i, q := range qs {
			c0 := processCPU()
			hits, err := search(q.text)
			d := processCPU() - c0
			if err != nil {
				return nil, nil, err
			}
			if r >= 0 {
				times[i] = append(times[i], d)
			}
			top[i] = hits
		}
	}
	med := make([]time.Duration, len(qs))
	for i, ts := range times {
		slices.Sort(ts)
		med[i] = ts[len(ts)/2]
	}
	return med, top, nil
}

// percentile returns the p-th percentile (0-100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// peakRSS is the process's largest resident set so far, in bytes (0 when
// the system does not say).
func peakRSS() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}
