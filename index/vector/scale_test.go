//go:build unix

package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/internal/synth"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"go.etcd.io/bbolt"
)

// BenchmarkScale measures the vector index on the clustered unit vectors of
// index/internal/synth (1000 topics) at 10k vectors, 100k with
// MCPVEC_BENCH_LARGE=1, 1M with MCPVEC_BENCH_HUGE=1; MCPVEC_BENCH_DIM sets
// the dimension (default 384), MCPVEC_BENCH_SOURCE=1 keeps the float32
// vectors in a bbolt bucket read through Config.Source instead of in memory:
//
//	MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench Scale -benchtime 1x ./index/
//
// Each size runs once whatever b.N is and reports vectors/s inserted (all
// cores, default config; wall and per CPU-second, vector generation
// included), heap-MB (HeapInuse after GC, minus the baseline),
// save-s and load-s (a clean read of the saved graph through a bbolt file;
// vectors come from memory, as if the store streamed them; with a Source,
// LoadSums over their checksums), query p50/p99 over 1000 queries (k 10, one goroutine; wall and thread CPU
// time) and
// recall@10 against the exact scan (also at ef 100, 200 and 400, and of
// the first 10 of Search(q, 100) as "recall@10-k100", untimed), with the
// ef Search used at k 10 and k 100.
// MCPVEC_BENCH_NOSAVE=1 skips the save and load. MCPVEC_BENCH_PROFILE=dir
// writes a heap profile after the build.
func BenchmarkScale(b *testing.B) {
	dim := 384
	if v, err := strconv.Atoi(os.Getenv("MCPVEC_BENCH_DIM")); err == nil && v > 0 {
		dim = v
	}
	for _, n := range synth.Sizes() {
		b.Run(fmt.Sprintf("n%dk_d%d", n/1000, dim), func(b *testing.B) {
			for unit, v := range scaleRun(b, n, dim) {
				b.ReportMetric(v, unit)
			}
		})
	}
}

func scaleRun(b *testing.B, n, dim int) map[string]float64 {
	c := synth.New(1, 250, dim)
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "idx.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cfg := DefaultConfig()
	if os.Getenv("MCPVEC_BENCH_SOURCE") == "1" {
		cfg.Source = storeVectors(b, db, c, n)
	}
	base := synth.HeapInuse()
	t0, c0 := time.Now(), cputime.Process()
	x := scaleBuild(b, c, n, cfg)
	m := map[string]float64{"vectors/s": float64(n) / time.Since(t0).Seconds()}
	m["vectors/cpu-s"] = float64(n) / (cputime.Process() - c0).Seconds()
	m["heap-MB"] = float64(synth.HeapInuse()-base) / (1 << 20)
	if err := synth.WriteHeapProfile(fmt.Sprintf("index-%dk-d%d", n/1000, dim)); err != nil {
		b.Fatal(err)
	}
	for unit, v := range scaleQueries(b, c, x, n) {
		m[unit] = v
	}
	if os.Getenv("MCPVEC_BENCH_NOSAVE") == "1" {
		return m // recall and latency only: at 1M the save alone took 21 minutes
	}
	save, load, loadCPU := scaleSaveLoad(b, db, c, x, n)
	m["save-s"], m["load-s"], m["load-cpu-s"] = save.Seconds(), load.Seconds(), loadCPU.Seconds()
	return m
}

func scaleBuild(b *testing.B, c *synth.Corpus, n int, cfg Config) *Index {
	x := New(c.Dim, cfg)
	addParallel(b, x, n, func(i int) []float32 { return c.Vector(uint64(i)) })
	return x
}

func scaleQueries(b *testing.B, c *synth.Corpus, x *Index, n int) map[string]float64 {
	const nq = 1000
	qs := make([][]float32, nq)
	for j := range nq {
		qs[j] = c.QueryVector(uint64(j), n)
	}
	want := bruteTruth(c, n, qs, 10)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wall, cpu, got := make([]time.Duration, nq), make([]time.Duration, nq), make([][]Result, nq)
	var err error
	for j, q := range qs {
		t0, c0 := time.Now(), cputime.Thread()
		var rs []Result
		rs, err = x.Search(q, 10)
		wall[j], cpu[j] = time.Since(t0), cputime.Thread()-c0
		if err != nil {
			b.Fatal(err)
		}
		got[j] = rs
	}
	m := synth.LatencyMetrics(wall, cpu)
	m["recall@10"] = recall(want, got)
	for _, ef := range []int{100, 200, 400} { // the library's ef: 100, or 200 for the offline embedder
		for j, q := range qs {
			if got[j], err = x.SearchEf(q, 10, ef); err != nil {
				b.Fatal(err)
			}
		}
		m[fmt.Sprintf("recall@10-ef%d", ef)] = recall(want, got)
	}
	for j, q := range qs { // the library's 100 candidates, at the ef Search picks
		if got[j], err = x.Search(q, 100); err != nil {
			b.Fatal(err)
		}
		got[j] = got[j][:min(10, len(got[j]))]
	}
	m["recall@10-k100"] = recall(want, got)
	m["ef"], m["ef-k100"] = float64(x.searchEf(10)), float64(x.searchEf(100))
	return m
}

func scaleSaveLoad(b *testing.B, db *bbolt.DB, c *synth.Corpus, x *Index, n int) (save, load, loadCPU time.Duration) {
	t0 := time.Now()
	err := db.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("hnsw"))
		if err != nil {
			return err
		}
		return x.Save(boltKV{bk})
	})
	save = time.Since(t0)
	if err != nil {
		b.Fatal(err)
	}
	vecs := make([][]float32, n) // the store streams them from bbolt; not timed here
	sums := make([]uint32, n)    // the store keeps them in their own bucket
	for i := range vecs {
		vecs[i] = c.Vector(uint64(i))
		sums[i] = vecCRC(vecs[i])
	}
	t0, c0 := time.Now(), cputime.Process()
	err = db.View(func(tx *bbolt.Tx) error {
		kv := boltKV{tx.Bucket([]byte("hnsw"))}
		var y *Index
		var st LoadStats
		var err error
		if src := x.Config().Source; src != nil {
			y, st, err = LoadSums(kv, c.Dim, x.Config(), func(yield func(uint64, uint32) bool) {
				for i, s := range sums {
					if !yield(uint64(i), s) {
						return
					}
				}
			}, src.Vectors)
		} else {
			y, st, err = Load(kv, c.Dim, x.Config(), seqOf(vecs))
		}
		if err == nil && (st.Rebuilt || st.Inserted != 0 || st.Read != 0 || y.Len() != n) {
			err = fmt.Errorf("load was not a clean read: %+v", st)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return save, time.Since(t0), cputime.Process() - c0
}

// boltSource reads vectors from a bbolt bucket, one read transaction per
// search, as the store would.
type boltSource struct{ db *bbolt.DB }

func (s *boltSource) Vectors(ids []uint64, fn func(int, []float32)) error {
	return s.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte("vectors"))
		var v []float32
		for i, id := range ids {
			raw := bk.Get(binary.BigEndian.AppendUint64(nil, id))
			v = v[:0]
			for j := 0; j+4 <= len(raw); j += 4 {
				v = append(v, math.Float32frombits(binary.LittleEndian.Uint32(raw[j:])))
			}
			if raw != nil {
				fn(i, v)
			}
		}
		return nil
	})
}

// storeVectors writes the n vectors into the "vectors" bucket.
func storeVectors(b testing.TB, db *bbolt.DB, c *synth.Corpus, n int) *boltSource {
	err := db.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("vectors"))
		if err != nil {
			return err
		}
		for i := range n {
			var raw []byte
			for _, f := range c.Vector(uint64(i)) {
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
			}
			if err := bk.Put(binary.BigEndian.AppendUint64(nil, uint64(i)), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return &boltSource{db}
}

// bruteTruth is the exact top k of every query by float32 brute force over
// regenerated vectors (the index may hold only int8 codes), 1000 at a time.
func bruteTruth(c *synth.Corpus, n int, qs [][]float32, k int) [][]uint64 {
	hs := make([]minHeap, len(qs))
	for lo := 0; lo < n; lo += 1000 {
		var chunk [][]float32
		for i := lo; i < min(n, lo+1000); i++ {
			chunk = append(chunk, c.Vector(uint64(i)))
		}
		for j, q := range qs {
			for i, v := range chunk {
				sc := dot(q, v)
				if len(hs[j]) < k {
					hs[j].push(cand{uint32(lo + i), sc})
				} else if sc > hs[j][0].score {
					hs[j][0] = cand{uint32(lo + i), sc}
					hs[j].fix0()
				}
			}
		}
	}
	out := make([][]uint64, len(qs))
	for j, h := range hs {
		for _, c := range h {
			out[j] = append(out[j], uint64(c.slot))
		}
	}
	return out
}
