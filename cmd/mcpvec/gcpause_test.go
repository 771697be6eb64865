package main

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestPauseGC: the collector is off while paused, with the memory limit
// lowered to the pause's; restore, or the end of the pause, gives back
// the settings from before, and a second restore changes nothing. Two
// pauses that overlap leave it off until both end.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(70))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	settings := func() (int, int64) { // read, not set: the pause's timer may restore meanwhile
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
		metrics.Read(s)
		return int(int64(s[0].Value.Uint64())), int64(s[1].Value.Uint64()) // off reads as -1
	}
	restore := pauseGC(1<<30, time.Hour)
	if p, l := settings(); p != -1 || l != 1<<30 {
		t.Errorf("paused: GC percent %d, memory limit %d; want -1 and 1 GiB", p, l)
	}
	restore()
	if p, l := settings(); p != 70 || l != 3<<30 {
		t.Errorf("restored: GC percent %d, memory limit %d; want 70 and 3 GiB", p, l)
	}
	debug.SetGCPercent(90)
	restore()
	if p, _ := settings(); p != 90 {
		t.Errorf("a second restore set GC percent %d, want 90 left alone", p)
	}

	debug.SetMemoryLimit(512 << 20) // a lower limit set before stays
	restore = pauseGC(1<<30, 20*time.Millisecond)
	defer restore()
	if _, l := settings(); l != 512<<20 {
		t.Errorf("paused under a lower limit: memory limit %d, want 512 MiB", l)
	}
	deadline := time.Now().Add(10 * time.Second)
	for p, _ := settings(); p == -1; p, _ = settings() {
		if time.Now().After(deadline) {
			t.Fatal("the collector is still off 10 s after a 20 ms pause")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if p, l := settings(); p != 90 || l != 512<<20 {
		t.Errorf("after the pause: GC percent %d, memory limit %d; want 90 and 512 MiB", p, l)
	}

	first := pauseGC(1<<30, time.Hour) // overlapping pauses: off until the last ends
	second := pauseGC(1<<30, time.Hour)
	first()
	if p, _ := settings(); p != -1 {
		t.Errorf("one of two pauses ended: GC percent %d, want -1", p)
	}
	second()
	if p, l := settings(); p != 90 || l != 512<<20 {
		t.Errorf("both pauses ended: GC percent %d, memory limit %d; want 90 and 512 MiB", p, l)
	}
}
