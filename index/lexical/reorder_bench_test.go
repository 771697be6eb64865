package lexical

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/internal/cputime"
	"go.etcd.io/bbolt"
)

// BenchmarkReorder compares, in one run, an index whose segment keeps the
// passages in the order they were added with one whose passages were
// reordered (reorder.go), on a folder of text files:
//
//	MCPVEC_REORDER_CORPUS=/tmp/corpus [MCPVEC_REORDER_PASSAGES=100000] \
//	  [MCPVEC_REORDER_QUERIES=../shared/eval/scifact/queries.jsonl] [MCPVEC_REORDER_ROUNDS=5] \
//	  go test -run '^$' -bench Reorder -benchtime 1x -timeout 1h ./index/lexical/
//
// MCPVEC_REORDER_CORPUS may also be a passages.tsv of cmd/mcpvec-realtext
// (the passages ingest makes) and MCPVEC_REORDER_QUERIES its queries.tsv.
// The files (walked in name order) are cut into passages at blank lines,
// paragraphs joined up to passageWords words. The queries are the "text" of
// each JSON line of MCPVEC_REORDER_QUERIES, or, without it, 1000
// known-item queries made from the passages (knownItems). Both indexes are
// saved into a bbolt file (a segment each) and searched at k 10, each query
// on both in alternation for MCPVEC_REORDER_ROUNDS rounds; the results must
// be identical. Reported: Save's wall and CPU seconds and the bytes it
// allocated and the largest heap seen (sampled every 5 ms), the stored
// bytes and the posting lists' bytes, the median over queries of each
// query's median thread CPU and mean postings read and passages rescored.
func BenchmarkReorder(b *testing.B) {
	dir := os.Getenv("MCPVEC_REORDER_CORPUS")
	if dir == "" {
		b.Skip("MCPVEC_REORDER_CORPUS not set")
	}
	max := envInt("MCPVEC_REORDER_PASSAGES", 100_000)
	texts, err := corpusPassages(dir, max)
	if strings.HasSuffix(dir, ".tsv") {
		texts, err = tsvColumn(dir, 2, max)
	}
	if err != nil {
		b.Fatal(err)
	}
	queries := knownItems(texts, 1000)
	if qf := os.Getenv("MCPVEC_REORDER_QUERIES"); strings.HasSuffix(qf, ".tsv") {
		queries, err = tsvColumn(qf, 4, 1<<30)
	} else if qf != "" {
		queries, err = jsonQueries(qf)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d passages, %d queries", len(texts), len(queries))
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "lex.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var ixs [2]*Index
	for i, name := range []string{"before", "after"} {
		ixs[i] = New(DefaultConfig())
		for id, t := range texts {
			ixs[i].Add(uint64(id), t)
		}
		from := reorderFrom
		reorderFrom = i * 4096 // before: off
		sv := measureSave(b, db, name, ixs[i])
		reorderFrom = from
		b.Logf("%s: save %.2f s wall, %.2f s CPU, %.0f MB allocated, heap peak +%.0f MB; stored %.2f MB, postings %.3f MB in %d blocks",
			name, sv.wall, sv.cpu, sv.allocMB, sv.peakMB, sv.storedMB, sv.postMB, sv.blocks)
		for unit, v := range sv.metrics() {
			b.ReportMetric(v, name+"-"+unit)
		}
	}
	for unit, v := range compareQueries(b, ixs, queries, envInt("MCPVEC_REORDER_ROUNDS", 5)) {
		b.ReportMetric(v, unit)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// passageWords is the most words corpusPassages joins into a passage.
const passageWords = 150

// corpusPassages cuts the files under dir into up to max passages.
func corpusPassages(dir string, max int) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(out) >= max {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cur []string
		for para := range strings.SplitSeq(string(data), "\n\n") {
			words := strings.Fields(para)
			if len(cur)+len(words) > passageWords && len(cur) > 0 {
				out, cur = appendPassage(out, cur), nil
			}
			cur = append(cur, words...)
		}
		out = appendPassage(out, cur)
		return nil
	})
	if len(out) > max {
		out = out[:max]
	}
	return out, err
}

// appendPassage appends the words as a passage when there are 8 or more.
func appendPassage(out, words []string) []string {
	if len(words) < 8 {
		return out
	}
	return append(out, strings.Join(words, " "))
}

// knownItems makes n queries from evenly spread passages: the first twelve
// words, every third dropped.
func knownItems(texts []string, n int) []string {
	var qs []string
	for i := 0; i < n && len(texts) > 0; i++ {
		words := strings.Fields(texts[i*len(texts)/n])
		var q []string
		for j, w := range words[:min(len(words), 12)] {
			if j%3 != 2 {
				q = append(q, w)
			}
		}
		qs = append(qs, strings.Join(q, " "))
	}
	return qs
}

// tsvColumn reads column col (from 0) of up to max lines of a file of
// cmd/mcpvec-realtext (passages.tsv: the passage text; queries.tsv: the
// query), with its \\, \t, \n and \r unescaped.
func tsvColumn(path string, col, max int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	unescape := strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && len(out) < max {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) <= col {
			return nil, fmt.Errorf("%s: a line of %d columns", path, len(fields))
		}
		out = append(out, unescape.Replace(fields[col]))
	}
	return out, sc.Err()
}

// jsonQueries reads the "text" of each JSON line of path.
func jsonQueries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		qs = append(qs, q.Text)
	}
	return qs, sc.Err()
}

type saveFigures struct {
	wall, cpu, allocMB, peakMB, storedMB, postMB float64
	blocks                                       int
}

func (s saveFigures) metrics() map[string]float64 {
	return map[string]float64{"save-s": s.wall, "save-cpu-s": s.cpu, "save-alloc-MB": s.allocMB,
		"save-peak-MB": s.peakMB, "stored-MB": s.storedMB, "postings-MB": s.postMB}
}

// measureSave saves ix into bucket name (a fresh index: a segment) and
// measures it.
func measureSave(b *testing.B, db *bbolt.DB, name string, ix *Index) saveFigures {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0, heap0 := ms.TotalAlloc, ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // bounded by stop
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				peak.Store(max(peak.Load(), m.HeapInuse))
			}
		}
	}()
	t0, c0 := time.Now(), cputime.Process()
	err := db.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucket([]byte(name))
		if err != nil {
			return err
		}
		return ix.Save(bk)
	})
	wall, cpu := time.Since(t0), cputime.Process()-c0
	close(stop)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	f := saveFigures{wall: wall.Seconds(), cpu: cpu.Seconds(), allocMB: float64(ms.TotalAlloc-alloc0) / (1 << 20),
		peakMB: float64(peak.Load()-min(peak.Load(), heap0)) / (1 << 20)}
	f.storedMB = bucketMB(b, db, name)
	for i := range ix.post {
		f.postMB += float64(len(ix.post[i].data)) / (1 << 20)
		f.blocks += len(ix.post[i].blocks)
	}
	return f
}

func bucketMB(b *testing.B, db *bbolt.DB, name string) float64 {
	n := 0
	err := db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
			n += len(k) + len(v)
			return nil
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	return float64(n) / (1 << 20)
}

// compareQueries runs each query on both indexes, alternating which goes
// first, for rounds rounds; the results must be equal. It returns the
// medians over queries of the per-query median CPU (µs), and of postings
// read and passages rescored, for each index, and the CPU ratio.
func compareQueries(b *testing.B, ixs [2]*Index, queries []string, rounds int) map[string]float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var read, rescored int
	onSearch = func(r, s int) { read, rescored = r, s }
	defer func() { onSearch = nil }()
	cpu := [2][][]float64{make([][]float64, len(queries)), make([][]float64, len(queries))}
	var reads, rescores [2][]float64
	for r := range rounds {
		for qi, q := range queries {
			var res [2][]Result
			for j := range 2 {
				i := (j + r + qi) % 2
				c0 := cputime.Thread()
				res[i] = ixs[i].Search(q, 10)
				cpu[i][qi] = append(cpu[i][qi], float64((cputime.Thread()-c0).Nanoseconds())/1e3)
				if r == 0 {
					reads[i], rescores[i] = append(reads[i], float64(read)), append(rescores[i], float64(rescored))
				}
			}
			if !slices.Equal(res[0], res[1]) {
				b.Fatalf("query %q: reordered results differ:\n%v\n%v", q, res[0], res[1])
			}
		}
	}
	m := map[string]float64{}
	for i, name := range []string{"before", "after"} {
		per := make([]float64, len(queries))
		for qi := range queries {
			per[qi] = median(cpu[i][qi])
		}
		m[name+"-cpu-µs-p50"] = median(per)
		m[name+"-cpu-µs-mean"] = mean(per)
		m[name+"-read-p50"], m[name+"-read-mean"] = median(reads[i]), mean(reads[i])
		m[name+"-rescored-mean"] = mean(rescores[i])
	}
	m["cpu-mean-ratio"] = m["after-cpu-µs-mean"] / m["before-cpu-µs-mean"]
	return m
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(max(len(v), 1))
}
