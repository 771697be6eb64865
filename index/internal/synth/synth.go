// Package synth generates a large synthetic-but-realistic corpus for the
// index packages' scale benchmarks: passages of Zipf-distributed words with a
// per-topic vocabulary, and clustered unit vectors. Everything is a pure
// function of (seed, i), so a benchmark can stream a million passages without
// holding them and regenerate any of them later (for Load, or for queries).
// It is safe for concurrent use.
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Corpus describes the generated collection.
type Corpus struct {
	Seed   uint64
	Vocab  int // distinct words in the global vocabulary
	Topics int // topics (and vector clusters)
	Words  int // mean words per passage (uniform in [Words/2, 3*Words/2])
	Dim    int // vector dimension

	centres [][]float32
}

// New returns a corpus generator. The vocabulary mimics English: Zipf
// exponent 1.07 over the global words plus, per topic, a 2,000-word slice
// of the vocabulary that a fifth of each passage's words come from.
func New(seed uint64, words, dim int) *Corpus {
	c := &Corpus{Seed: seed, Vocab: 200_000, Topics: 1000, Words: words, Dim: dim}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	c.centres = make([][]float32, c.Topics)
	for i := range c.centres {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		c.centres[i] = v
	}
	return c
}

func (c *Corpus) rng(kind, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(c.Seed^kind*0x9e3779b97f4a7c15, i))
}

// topic is passage i's topic: a skewed choice, as real collections have a
// few big subjects and many small ones.
func (c *Corpus) topic(i uint64) int {
	r := c.rng(1, i)
	return int(math.Floor(float64(c.Topics) * math.Pow(r.Float64(), 2)))
}

// Word is the spelling of word w: consonant-vowel syllables, letters only.
func Word(w uint64) string {
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	var sb strings.Builder
	w++
	for w > 0 {
		sb.WriteByte(cons[w%16])
		w /= 16
		sb.WriteByte(vows[w%5])
		w /= 5
	}
	return sb.String()
}

// Text is passage i.
func (c *Corpus) Text(i uint64) string {
	r := c.rng(2, i)
	global := rand.NewZipf(r, 1.07, 2, uint64(c.Vocab-1))
	local := rand.NewZipf(r, 1.2, 1, 1999)
	base := uint64(c.topic(i)) * 2000 % uint64(c.Vocab)
	n := c.Words/2 + r.IntN(c.Words+1)
	var sb strings.Builder
	sb.Grow(n * 8)
	for j := range n {
		w := global.Uint64()
		if r.IntN(5) == 0 {
			w = (base + local.Uint64()) % uint64(c.Vocab)
		}
		if j > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(Word(w))
	}
	return sb.String()
}

// Query is query j: two to six words of a passage among the first n, drawn
// as they occur there, so common words are as frequent in queries as in text.
func (c *Corpus) Query(j uint64, n int) string {
	r := c.rng(3, j)
	words := strings.Fields(c.Text(uint64(r.IntN(n))))
	k := 2 + r.IntN(5)
	out := make([]string, 0, k)
	for range k {
		out = append(out, words[r.IntN(len(words))])
	}
	return strings.Join(out, " ")
}

// Vector is passage i's vector: its topic's centre plus Gaussian noise,
// normalised.
func (c *Corpus) Vector(i uint64) []float32 {
	return c.around(c.topic(i), c.rng(4, i))
}

// QueryVector is query j's vector: near passage j's topic but not a passage.
func (c *Corpus) QueryVector(j uint64, n int) []float32 {
	r := c.rng(5, j)
	return c.around(c.topic(uint64(r.IntN(n))), r)
}

func (c *Corpus) around(t int, r *rand.Rand) []float32 {
	v := make([]float32, c.Dim)
	spread := 0.35 + 0.3*float64(t%3)
	var norm float64
	for j := range v {
		f := float64(c.centres[t][j]) + r.NormFloat64()*spread
		v[j] = float32(f)
		norm += f * f
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range v {
		v[j] *= inv
	}
	return v
}

// Sizes returns the passage counts a scale benchmark runs at: 10k, plus 100k
// when MCPVEC_BENCH_LARGE=1 and 1M when MCPVEC_BENCH_HUGE=1; or the counts
// listed in MCPVEC_BENCH_SIZES instead (comma-separated, "k" and "m"
// suffixes allowed: "100k,300k,1m"), skipping entries that do not parse.
func Sizes() []int {
	if list := os.Getenv("MCPVEC_BENCH_SIZES"); list != "" {
		return parseSizes(list)
	}
	s := []int{10_000}
	if os.Getenv("MCPVEC_BENCH_LARGE") == "1" || os.Getenv("MCPVEC_BENCH_HUGE") == "1" {
		s = append(s, 100_000)
	}
	if os.Getenv("MCPVEC_BENCH_HUGE") == "1" {
		s = append(s, 1_000_000)
	}
	return s
}

// parseSizes parses a list such as "100k,300k,1m" into counts.
func parseSizes(list string) []int {
	var out []int
	for _, f := range strings.Split(strings.ToLower(list), ",") {
		f, mul := strings.TrimSpace(f), 1
		switch {
		case strings.HasSuffix(f, "k"):
			f, mul = strings.TrimSuffix(f, "k"), 1_000
		case strings.HasSuffix(f, "m"):
			f, mul = strings.TrimSuffix(f, "m"), 1_000_000
		}
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n*mul)
		}
	}
	return out
}

// HeapInuse is runtime.MemStats.HeapInuse after two garbage collections.
func HeapInuse() uint64 { return memStats().HeapInuse }

// HeapAlloc is runtime.MemStats.HeapAlloc after two garbage collections.
func HeapAlloc() uint64 { return memStats().HeapAlloc }

func memStats() *runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &ms
}

// Parallel calls fn(i) for every i in [0, n), spread over GOMAXPROCS
// goroutines (worker w takes w, w+workers, …). A worker stops at its first
// error; Parallel returns the errors joined once all workers are done.
func Parallel(n int, fn func(i int) error) error {
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// WriteHeapProfile writes a heap profile to $MCPVEC_BENCH_PROFILE/name.pprof
// when that variable names a folder; it does nothing otherwise.
func WriteHeapProfile(name string) error {
	dir := os.Getenv("MCPVEC_BENCH_PROFILE")
	if dir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}

// Percentile returns the p-th percentile (0 < p ≤ 1) of ds, sorting ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(p*float64(len(ds)))) - 1
	return ds[max(i, 0)]
}

// LatencyMetrics reports the p50 and p99 of wall and CPU query times in
// microseconds, as benchmark metrics.
func LatencyMetrics(wall, cpu []time.Duration) map[string]float64 {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return map[string]float64{
		"p50-us": us(Percentile(wall, 0.5)), "p99-us": us(Percentile(wall, 0.99)),
		"cpu-p50-us": us(Percentile(cpu, 0.5)), "cpu-p99-us": us(Percentile(cpu, 0.99)),
	}
}
