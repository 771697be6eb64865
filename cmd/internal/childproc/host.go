package childproc

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/internal/cputime"
)

// HostCPU is the machine's CPU time so far, all CPUs summed, from the
// first line of /proc/stat (in clock ticks, USER_HZ).
type HostCPU struct {
	Busy  int64 // user, nice, system, irq, softirq
	Steal int64 // taken by the hypervisor for other guests
	Total int64 // every field but guest time (already counted in user)
}

// ReadHostCPU reads /proc/stat; the error says why it could not.
func ReadHostCPU() (HostCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return HostCPU{}, err
	}
	return parseHostCPU(b)
}

// parseHostCPU parses the aggregate "cpu" line of /proc/stat: user nice
// system idle iowait irq softirq steal [guest guest_nice].
func parseHostCPU(b []byte) (HostCPU, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return HostCPU{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var v [8]int64
	for i := range v {
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return HostCPU{}, fmt.Errorf("/proc/stat: field %d: %w", i+1, err)
		}
		v[i] = n
	}
	h := HostCPU{Busy: v[0] + v[1] + v[2] + v[5] + v[6], Steal: v[7]}
	for _, n := range v {
		h.Total += n
	}
	return h, nil
}

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// HostShares is how a span of the machine's CPU time was spent, as shares
// of it (0 to 1): stolen by the hypervisor, and busy in processes other
// than the ones measured.
type HostShares struct {
	Steal  float64 `json:"steal"`
	Others float64 `json:"others"`
	// Probe is Probe's figure just before and just after the span (the
	// caller's to set).
	Probe [2]float64 `json:"probe_ns"`
}

// Shares compares h with an earlier reading: ours is the CPU time the
// measured processes used in between. Zero when no time passed.
func (h HostCPU) Shares(earlier HostCPU, ours time.Duration) HostShares {
	total := h.Total - earlier.Total
	if total <= 0 {
		return HostShares{}
	}
	busy := time.Duration(h.Busy-earlier.Busy) * clockTick
	t := float64(time.Duration(total) * clockTick)
	return HostShares{
		Steal:  float64(h.Steal-earlier.Steal) / float64(total),
		Others: max(0, float64(busy-ours)/t),
	}
}

// String is ", host: steal S%, other processes O%, probe B/A ns", or ""
// for nil.
func (s *HostShares) String() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf(", host: steal %.0f%%, other processes %.0f%%, probe %.2f/%.2f ns", 100*s.Steal, 100*s.Others, s.Probe[0], s.Probe[1])
}

// probeRounds is the size of Probe's fixed workload: ~10-20 ms of one CPU.
const probeRounds = 1 << 23

// Probe times a fixed single-threaded workload (integer steps and random
// reads of a 2 MB table) and returns its
// thread CPU time per round, in nanoseconds. The hypervisor's steal does
// not show in it, but a CPU shared with another guest's thread (SMT) or a
// lower clock does: on a shared VM the same code can take half again as
// long from one minute to the next, and a phase's timings are only
// comparable with another's when their probes agree.
func Probe() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	table := make([]uint64, 1<<18) // 2 MB: reads that depend on the caches as a search's do
	for i := range table {
		table[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	start := cputime.Thread()
	x, sum := uint64(0x9E3779B97F4A7C15), uint64(0)
	for range probeRounds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		sum += table[x&(1<<18-1)]
	}
	runtime.KeepAlive(x + sum) // the loop's result is used: it is not dropped
	return float64(cputime.Thread()-start) / probeRounds
}

// pageProbeBytes is how much fresh memory PageProbe touches.
const pageProbeBytes = 64 << 20
