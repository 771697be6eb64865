//go:build unix

package vector

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/internal/synth"
	"github.com/mcpvec/mcpvec/internal/cputime"
)

// sweepEfs are the ef values BenchmarkEfSweep measures, unless
// MCPVEC_BENCH_EFS lists others ("64,100").
func sweepEfs() []int {
	var efs []int
	for _, f := range strings.Split(os.Getenv("MCPVEC_BENCH_EFS"), ",") {
		if ef, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && ef > 0 {
			efs = append(efs, ef)
		}
	}
	if len(efs) == 0 {
		return []int{64, 100, 128, 160, 200, 256, 320, 400}
	}
	return efs
}

// BenchmarkEfSweep measures recall@10 and query CPU against ef on the
// clustered 384-d vectors of index/internal/synth, in the library's
// configuration: the index keeps int8 codes and re-scores through a Source
// (here the vectors in memory, so no store read is timed). Sizes come from
// synth.Sizes (MCPVEC_BENCH_SIZES=100k,300k,1m):
//
//	MCPVEC_BENCH_SIZES=100k,300k flock /work/bench.lock go test -run '^$' -bench EfSweep -benchtime 1x -timeout 3h ./index/
//
// For k 10 and k 100 (the library's candidate count) and every ef of
// sweepEfs, plus "auto" (Search: the ef the index picks, reported as
// auto-ef), it reports the recall@10 of the first 10 results against the
// exact scan over 1000 queries, and the median over MCPVEC_BENCH_ROUNDS
// rounds (default 3) of the per-query thread-CPU p50 and p90, one
// goroutine; the log lists every round's p50. Each round runs every
// setting in turn, so settings alternate. MCPVEC_BENCH_EFS=64,100 measures
// those efs instead.
func BenchmarkEfSweep(b *testing.B) {
	for _, n := range synth.Sizes() {
		b.Run(fmt.Sprintf("n%dk_d384", n/1000), func(b *testing.B) {
			for unit, v := range efSweep(b, n, 384) {
				b.ReportMetric(v, unit)
			}
		})
	}
}

// memSource serves vectors by id from memory.
type memSource [][]float32

func (m memSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	for i, id := range ids {
		if id < uint64(len(m)) {
			fn(i, m[id])
		}
	}
	return nil
}

// sweepCase is one measured setting; ef 0 is Search (the index's choice).
type sweepCase struct{ k, ef int }

func (s sweepCase) String() string {
	if s.ef == 0 {
		return fmt.Sprintf("k%d-auto", s.k)
	}
	return fmt.Sprintf("k%d-ef%d", s.k, s.ef)
}

func efSweep(b *testing.B, n, dim int) map[string]float64 {
	c := synth.New(1, 250, dim)
	vecs := make(memSource, n)
	_ = synth.Parallel(n, func(i int) error { vecs[i] = c.Vector(uint64(i)); return nil })
	cfg := DefaultConfig()
	cfg.Source = vecs
	t0 := time.Now()
	x := New(dim, cfg)
	addParallel(b, x, n, func(i int) []float32 { return vecs[i] })
	m := map[string]float64{"build-s": time.Since(t0).Seconds(), "auto-ef": float64(x.searchEf(10))}
	qs := make([][]float32, 1000)
	for j := range qs {
		qs[j] = c.QueryVector(uint64(j), n)
	}
	want := exactTop(vecs, qs, 10)
	var cases []sweepCase
	for _, k := range []int{10, 100} {
		for _, ef := range append([]int{0}, sweepEfs()...) {
			cases = append(cases, sweepCase{k, ef})
		}
	}
	sweepRounds(b, x, qs, want, cases, m)
	return m
}

// sweepRounds runs every case once per round, recording recall (first
// round) and the median over rounds of the CPU p50 and p90 into m.
func sweepRounds(b *testing.B, x *Index, qs [][]float32, want [][]uint64, cases []sweepCase, m map[string]float64) {
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("MCPVEC_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	p50s, p90s := make([][]float64, len(cases)), make([][]float64, len(cases))
	for r := range rounds {
		for i, sc := range cases {
			got, cpu := sweepPass(b, x, qs, sc)
			if r == 0 {
				m[sc.String()+"-recall"] = recall(want, got)
			}
			p50s[i] = append(p50s[i], micros(synth.Percentile(cpu, 0.5)))
			p90s[i] = append(p90s[i], micros(synth.Percentile(cpu, 0.9)))
		}
	}
	for i, sc := range cases {
		b.Logf("%s cpu-p50-us by round: %.0f", sc, p50s[i])
		m[sc.String()+"-cpu-p50-us"] = median(p50s[i])
		m[sc.String()+"-cpu-p90-us"] = median(p90s[i])
	}
}

// sweepPass runs every query once on one locked thread and returns the
// first 10 results of each and the thread CPU time of each.
func sweepPass(b *testing.B, x *Index, qs [][]float32, sc sweepCase) ([][]Result, []time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	got, cpu := make([][]Result, len(qs)), make([]time.Duration, len(qs))
	for j, q := range qs {
		c0 := cputime.Thread()
		var rs []Result
		var err error
		if sc.ef == 0 {
			rs, err = x.Search(q, sc.k)
		} else {
			rs, err = x.SearchEf(q, sc.k, sc.ef)
		}
		cpu[j] = cputime.Thread() - c0
		if err != nil {
			b.Fatal(err)
		}
		got[j] = rs[:min(10, len(rs))]
	}
	return got, cpu
}

// exactTop is the exact top k of every query over vecs (ids are indexes),
// by float32 brute force on every core.
func exactTop(vecs [][]float32, qs [][]float32, k int) [][]uint64 {
	out := make([][]uint64, len(qs))
	_ = synth.Parallel(len(qs), func(j int) error {
		h := make(minHeap, 0, k)
		for i, v := range vecs {
			if sc := dot(qs[j], v); len(h) < k {
				h.push(cand{uint32(i), sc})
			} else if sc > h[0].score {
				h[0] = cand{uint32(i), sc}
				h.fix0()
			}
		}
		for _, c := range h {
			out[j] = append(out[j], uint64(c.slot))
		}
		return nil
	})
	return out
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
