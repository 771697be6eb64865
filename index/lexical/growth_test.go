package lexical

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/internal/synth"
	"github.com/mcpvec/mcpvec/internal/cputime"
	"go.etcd.io/bbolt"
)

// BenchmarkGrowth measures what the segment policy costs an ingest and
// saves the next load: the index grows to n synthetic passages (100k;
// MCPVEC_BENCH_GROWTH=n for another size) with a Save into a bbolt file
// after every batch of 9,000 (an ingest's 30-second periodic save at 300
// passages/s), once for each rewrite threshold (segmentDelta 4, the
// former, and 16). It reports save-s (all the Saves, commits included),
// save-cpu-s, rewrites (segments written), records (records and
// tombstones left beside the last segment), load-s and load-cpu-s
// (LoadSynced of the result):
//
//	go test -run '^$' -bench Growth -benchtime 1x ./index/lexical/
//
// Each threshold runs once whatever b.N is.
func BenchmarkGrowth(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MCPVEC_BENCH_GROWTH")); err == nil && v > 0 {
		n = v
	}
	c := synth.New(1, 250, 8)
	texts := make([]string, n)
	if err := synth.Parallel(n, func(i int) error { texts[i] = c.Text(uint64(i)); return nil }); err != nil {
		b.Fatal(err)
	}
	for _, delta := range []int{4, 16} {
		b.Run(fmt.Sprintf("n%dk/delta%d", n/1000, delta), func(b *testing.B) {
			old := segmentDelta
			segmentDelta = delta
			defer func() { segmentDelta = old }()
			for unit, v := range growthRun(b, texts) {
				b.ReportMetric(v, unit)
			}
		})
	}
}

func growthRun(b *testing.B, texts []string) map[string]float64 {
	const batch = 9000
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "lex.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ix := New(DefaultConfig())
	m := map[string]float64{}
	for i := 0; i < len(texts); i += batch {
		for j := i; j < min(len(texts), i+batch); j++ {
			ix.Add(uint64(j), texts[j])
		}
		wall, cpu := scaleSave(b, db, ix)
		m["save-s"] += wall
		m["save-cpu-s"] += cpu
		if ix.hasSeg && ix.deltaKeys == 0 { // this Save wrote a segment
			m["rewrites"]++
		}
	}
	m["records"] = float64(ix.deltaKeys)
	t0, c0 := time.Now(), cputime.Process()
	err = db.View(func(tx *bbolt.Tx) error {
		y, st, err := LoadSynced(tx.Bucket([]byte("lexical")), DefaultConfig(), nil, nil)
		if err == nil && (st.Loaded != len(texts) || y.Len() != len(texts)) {
			err = fmt.Errorf("load was not a clean read: %+v", st)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	m["load-s"], m["load-cpu-s"] = time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds()
	return m
}
