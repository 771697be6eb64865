package childproc

import (
	"math"
	"testing"
	"time"
)

// TestParseHostCPU: the aggregate line's fields land where they belong,
// guest time (already in user) left out; other first lines are errors.
func TestParseHostCPU(t *testing.T) {
	h, err := parseHostCPU([]byte("cpu  100 5 40 800 10 2 3 40 7 0\ncpu0 50 2 20 400 5 1 1 20 3 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (HostCPU{Busy: 150, Steal: 40, Total: 1000}); h != want {
		t.Fatalf("got %+v, want %+v", h, want)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2 3", "cpu a b c d e f g h"} {
		if _, err := parseHostCPU([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestHostShares: steal and other processes' time as shares of the span,
// the measured processes' own time taken out of the busy time.
func TestHostShares(t *testing.T) {
	before := HostCPU{Busy: 1000, Steal: 100, Total: 5000}
	after := HostCPU{Busy: 1150, Steal: 120, Total: 5200} // 2 s of CPU time: 1.5 s busy, 0.2 s stolen
	s := after.Shares(before, 1200*time.Millisecond)
	if math.Abs(s.Steal-0.1) > 1e-9 || math.Abs(s.Others-0.15) > 1e-9 {
		t.Fatalf("got %+v, want steal 0.1, others 0.15", s)
	}
	if s := after.Shares(after, 0); s != (HostShares{}) {
		t.Fatalf("no time passed: %+v", s)
	}
	if got := (*HostShares)(nil).String(); got != "" {
		t.Fatalf("nil: %q", got)
	}
	s.Probe = [2]float64{2.5, 3.25}
	if got, want := s.String(), ", host: steal 10%, other processes 15%, probe 2.50/3.25 ns"; got != want {
		t.Fatalf("String: %q, want %q", got, want)
	}
}

// TestReadHostCPU: this machine's /proc/stat parses and its total grows.
func TestReadHostCPU(t *testing.T) {
	a, err := ReadHostCPU()
	if err != nil {
		t.Skipf("no /proc/stat here: %v", err)
	}
	time.Sleep(30 * time.Millisecond)
	b, err := ReadHostCPU()
	if err != nil || b.Total <= a.Total || b.Busy < a.Busy {
		t.Fatalf("%+v then %+v, %v", a, b, err)
	}
}

// TestProbe: the probe's workload takes some time, and not absurdly much.
func TestProbe(t *testing.T) {
	ns := Probe()
	t.Logf("probe: %.3f ns a round", ns)
	if ns <= 0 || ns > 100 {
		t.Fatalf("probe %.3f ns a round", ns)
	}
}

// TestPageProbe: touching fresh pages takes a positive, bounded time
// (under 1 ms a page even on the slowest VM seen: 15 µs).
func TestPageProbe(t *testing.T) {
	us := PageProbe()
	t.Logf("fresh page: %.2f µs", us)
	if us <= 0 || us > 1000 {
		t.Fatalf("page probe %.3f µs a page", us)
	}
}
