package lexical

import (
	"fmt"
	"iter"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/internal/synth"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"go.etcd.io/bbolt"
)

// BenchmarkScale measures the BM25 index on the synthetic corpus of
// index/internal/synth (≈250 Zipf-distributed words per passage) at 10k
// passages, 100k with MCPVEC_BENCH_LARGE=1, 1M with MCPVEC_BENCH_HUGE=1:
//
//	MCPVEC_BENCH_LARGE=1 go test -run '^$' -bench Scale -benchtime 1x ./index/lexical/
//
// Each size runs once whatever b.N is and reports passages per CPU-second
// indexed (text generation excluded), heap-MB (HeapInuse after GC, minus
// the baseline), query p50/p99 over 1000 queries (k 10, one goroutine) as
// wall time and as the thread's CPU time (steadier on a shared machine),
// then through a bbolt file: save-s (the whole index), save10-s (after
// adding 10 passages), both also as process CPU (save-cpu-s, save10-cpu-s),
// stored-MB (keys and values the full Save wrote);
// load-s and load-cpu-s (Load, texts from memory as if the store streamed
// them); loadids-s, loadids-cpu-s and loadids-heap-MB (LoadIDs, which reads
// no text, and the heap the loaded index holds), and the query latencies
// again on that loaded index (loaded-*). MCPVEC_BENCH_PROFILE=dir writes a
// heap profile after the build.
func BenchmarkScale(b *testing.B) {
	for _, n := range synth.Sizes() {
		b.Run(fmt.Sprintf("n%dk", n/1000), func(b *testing.B) {
			for unit, v := range scaleRun(b, n) {
				b.ReportMetric(v, unit)
			}
		})
	}
}

func scaleRun(b *testing.B, n int) map[string]float64 {
	c := synth.New(1, 250, 8)
	base := synth.HeapInuse()
	ix, rate := scaleBuild(c, n)
	m := map[string]float64{"passages/cpu-s": rate}
	m["heap-MB"] = float64(synth.HeapInuse()-base) / (1 << 20)
	if err := synth.WriteHeapProfile(fmt.Sprintf("lexical-%dk", n/1000)); err != nil {
		b.Fatal(err)
	}
	for unit, v := range scaleQueries(c, ix, n) {
		m[unit] = v
	}
	for unit, v := range scaleSaveLoad(b, c, ix, n) {
		m[unit] = v
	}
	return m
}

// scaleBuild indexes n passages, generating them in batches so that only
// Add is timed, in CPU time of the pinned thread.
func scaleBuild(c *synth.Corpus, n int) (*Index, float64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ix := New(DefaultConfig())
	var spent time.Duration
	batch := make([]string, 0, 1000)
	for i := 0; i < n; i += cap(batch) {
		batch = batch[:0]
		for j := i; j < min(n, i+cap(batch)); j++ {
			batch = append(batch, c.Text(uint64(j)))
		}
		c0 := cputime.Thread()
		for j, text := range batch {
			ix.Add(uint64(i+j), text)
		}
		spent += cputime.Thread() - c0
	}
	return ix, float64(n) / spent.Seconds()
}

func scaleQueries(c *synth.Corpus, ix *Index, n int) map[string]float64 {
	qs := make([]string, 1000)
	for j := range qs {
		qs[j] = c.Query(uint64(j), n)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wall, cpu := make([]time.Duration, len(qs)), make([]time.Duration, len(qs))
	for j, q := range qs {
		t0, c0 := time.Now(), cputime.Thread()
		ix.Search(q, 10)
		wall[j], cpu[j] = time.Since(t0), cputime.Thread()-c0
	}
	return synth.LatencyMetrics(wall, cpu)
}

func scaleSaveLoad(b *testing.B, c *synth.Corpus, ix *Index, n int) map[string]float64 {
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "lex.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	m := map[string]float64{}
	m["save-s"], m["save-cpu-s"] = scaleSave(b, db, ix)
	m["stored-MB"] = storedMB(b, db)
	for i := range 10 {
		ix.Add(uint64(n+i), c.Text(uint64(n+i)))
	}
	m["save10-s"], m["save10-cpu-s"] = scaleSave(b, db, ix)
	n += 10
	texts := make([]string, n)
	for i := range texts {
		texts[i] = c.Text(uint64(i))
	}
	t0, c0 := time.Now(), cputime.Process()
	err = db.View(func(tx *bbolt.Tx) error {
		y, st, err := Load(tx.Bucket([]byte("lexical")), DefaultConfig(), seqStrings(texts))
		if err == nil && (st.Loaded != n || y.Len() != n) {
			err = fmt.Errorf("load was not a clean read: %+v", st)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	m["load-s"], m["load-cpu-s"] = time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds()
	texts = nil
	for unit, v := range scaleLoadIDs(b, c, db, n) {
		m[unit] = v
	}
	return m
}

// scaleSave saves ix into the bucket "lexical" in one transaction and
// returns how long the transaction took, in wall and process CPU seconds.
func scaleSave(b *testing.B, db *bbolt.DB, ix *Index) (wall, cpu float64) {
	t0, c0 := time.Now(), cputime.Process()
	err := db.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("lexical"))
		if err != nil {
			return err
		}
		return ix.Save(bk)
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds()
}

// storedMB is the size of the keys and values in the bucket "lexical".
func storedMB(b *testing.B, db *bbolt.DB) float64 {
	n := 0
	err := db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("lexical")).ForEach(func(k, v []byte) error {
			n += len(k) + len(v)
			return nil
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	return float64(n) / (1 << 20)
}

// scaleLoadIDs times LoadIDs (no passage text read), the heap the loaded
// index holds and queries on it.
func scaleLoadIDs(b *testing.B, c *synth.Corpus, db *bbolt.DB, n int) map[string]float64 {
	base := synth.HeapInuse()
	var y *Index
	t0, c0 := time.Now(), cputime.Process()
	err := db.View(func(tx *bbolt.Tx) error {
		ids := func(yield func(uint64) bool) {
			for i := range n {
				if !yield(uint64(i)) {
					return
				}
			}
		}
		noText := func(id uint64) (string, error) { return "", fmt.Errorf("text of %d asked", id) }
		var err error
		y, _, err = LoadIDs(tx.Bucket([]byte("lexical")), DefaultConfig(), ids, noText)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	wall, cpu := time.Since(t0), cputime.Process()-c0
	heap := float64(synth.HeapInuse()-base) / (1 << 20)
	if y.Len() != n {
		b.Fatalf("LoadIDs restored %d passages, want %d", y.Len(), n)
	}
	m := map[string]float64{"loadids-s": wall.Seconds(), "loadids-cpu-s": cpu.Seconds(), "loadids-heap-MB": heap}
	for unit, v := range scaleQueries(c, y, n) {
		m["loaded-"+unit] = v
	}
	return m
}

func seqStrings(ts []string) iter.Seq2[uint64, string] {
	return func(yield func(uint64, string) bool) {
		for i, t := range ts {
			if !yield(uint64(i), t) {
				return
			}
		}
	}
}
