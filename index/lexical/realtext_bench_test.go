package lexical

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/internal/cputime"
	"go.etcd.io/bbolt"
)

// The real-text corpus (cmd/mcpvec-realtext build: passages.tsv and
// queries.tsv), indexed in memory once per test binary.
var realText struct {
	once    sync.Once
	ix      *Index
	queries []string
	err     error
}

// openRealText indexes MCPVEC_BENCH_PASSAGES (passages.tsv: document,
// index, text with \\ \t \n \r escaped) as bench/anchors does (Add, then
// Fold), saves it into the bbolt file MCPVEC_BENCH_LEXDB (once: a later
// run reads the file) and loads it back in place, as serve does; it reads
// the query texts of MCPVEC_BENCH_QUERYTSV (queries.tsv: id, document,
// passage, kind, query, source). Skipped without the three.
func openRealText(tb testing.TB) (*Index, []string) {
	ps, qs, path := os.Getenv("MCPVEC_BENCH_PASSAGES"), os.Getenv("MCPVEC_BENCH_QUERYTSV"), os.Getenv("MCPVEC_BENCH_LEXDB")
	if ps == "" || qs == "" || path == "" {
		tb.Skip("set MCPVEC_BENCH_PASSAGES, MCPVEC_BENCH_QUERYTSV and MCPVEC_BENCH_LEXDB")
	}
	realText.once.Do(func() {
		realText.ix, realText.err = realTextIndex(ps, path)
		if realText.err == nil {
			realText.err = eachTSV(qs, 6, func(f []string) { realText.queries = append(realText.queries, f[4]) })
		}
	})
	if realText.err != nil {
		tb.Fatal(realText.err)
	}
	return realText.ix, realText.queries
}

// realTextIndex is openRealText's index, read in place from the bbolt
// file path (made from the passages when it does not exist). The file
// stays open, in a read transaction, for the test binary's life.
func realTextIndex(passages, path string) (*Index, error) {
	_, statErr := os.Stat(path)
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	if os.IsNotExist(statErr) {
		unescape := strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
		ix, id := New(DefaultConfig()), uint64(0)
		err := eachTSV(passages, 3, func(f []string) {
			ix.Add(id, unescape.Replace(f[2]))
			id++
		})
		if err == nil {
			ix.Fold()
			err = db.Update(func(tx *bbolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("lexical"))
				if err != nil {
					return err
				}
				return ix.Save(b)
			})
		}
		if err != nil {
			return nil, err
		}
	}
	tx, err := db.Begin(false)
	if err != nil {
		return nil, err
	}
	ix, _, err := LoadSynced(InPlace(tx.Bucket([]byte("lexical"))), DefaultConfig(), nil, nil)
	return ix, err
}

// eachTSV calls fn with the first n tab-separated fields of every line of
// path that has at least n.
func eachTSV(path string, n int, fn func([]string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if fs := strings.SplitN(sc.Text(), "\t", n+1); len(fs) >= n {
			fn(fs)
		}
	}
	return sc.Err()
}

// BenchmarkRealText measures SearchQuery at k 12 (what a lexical search
// of serve's 10 results asks of the index) over the real-text queries in
// turn, after one warm-up pass, in process CPU per search (cpu-ns/op).
// Run it with -cpu 1.
//
//	MCPVEC_BENCH_PASSAGES=/tmp/rtc/100000/passages.tsv MCPVEC_BENCH_QUERYTSV=/tmp/rtc/100000/queries.tsv \
//	MCPVEC_BENCH_LEXDB=/tmp/rt100k-lex.db \
//	  go test -run '^$' -bench RealText -cpu 1 -benchtime 20000x ./index/lexical/
func BenchmarkRealText(b *testing.B) {
	benchRealText(b, 12, nil)
}

// benchRealText measures SearchQuery at k over the real-text queries in
// turn, after one warm-up pass (then it calls warm, when not nil), in
// process CPU per search.
func benchRealText(b *testing.B, k int, warm func()) {
	ix, queries := openRealText(b)
	for _, q := range queries {
		ix.SearchQuery(q, nil, k)
	}
	if warm != nil {
		warm()
	}
	b.ReportAllocs()
	i, c0 := 0, cputime.Process()
	for b.Loop() {
		ix.SearchQuery(queries[i%len(queries)], nil, k)
		i++
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRealTextRule is BenchmarkRealText as the anchors harness and
// serve's lexical search ask: k 10 with the short-query rule on
// (query_short.go; this package's TestMain turns it off). It reports the
// postings read (the lengths of the lists scored) and the passages
// rescored per search besides the CPU. Run it with -cpu 1.
//
//	MCPVEC_BENCH_PASSAGES=/tmp/rtc/all/passages.tsv MCPVEC_BENCH_QUERYTSV=/tmp/rtc/all/queries.tsv \
//	MCPVEC_BENCH_LEXDB=/tmp/rt1m-lex.db \
//	  go test -run '^$' -bench RealTextRule -cpu 1 -benchtime 10000x ./index/lexical/
func BenchmarkRealTextRule(b *testing.B) {
	withShortQueries(b)
	read, rescored, counting := 0, 0, false // the warm-up pass is not counted
	onSearch = func(r, s int) {
		if counting {
			read, rescored = read+r, rescored+s
		}
	}
	defer func() { onSearch = nil }()
	benchRealText(b, 10, func() { counting = true })
	b.ReportMetric(float64(read)/float64(b.N), "postings/op")
	b.ReportMetric(float64(rescored)/float64(b.N), "rescored/op")
}

// TestRealTextDigest writes the ids and scores every real-text query gets
// at k 1, 10, 12, 20, 40 and 100 (pruned below 50, term at a time from
// there) to MCPVEC_BENCH_RESULTS and logs their SHA-256: two builds whose
// digests match rank alike, ties included. Skipped without it and
// openRealText's variables.
//
//	MCPVEC_BENCH_RESULTS=/tmp/r.txt MCPVEC_BENCH_PASSAGES=… MCPVEC_BENCH_QUERYTSV=… MCPVEC_BENCH_LEXDB=… \
//	  go test -run RealTextDigest -v ./index/lexical/
func TestRealTextDigest(t *testing.T) {
	out := os.Getenv("MCPVEC_BENCH_RESULTS")
	if out == "" {
		t.Skip("set MCPVEC_BENCH_RESULTS")
	}
	realTextDigest(t, out, 1, 10, 12, 20, 40, 100)
}

// realTextDigest writes the ids and scores every real-text query gets at
// each of ks to out and logs their SHA-256.
func realTextDigest(t *testing.T, out string, ks ...int) {
	ix, queries := openRealText(t)
	var b bytes.Buffer
	for _, k := range ks {
		for _, q := range queries {
			fmt.Fprintf(&b, "%d %q %v\n", k, q, ix.SearchQuery(q, nil, k))
		}
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("sha256 %x, %d queries", sha256.Sum256(b.Bytes()), len(queries))
}

// TestRealTextDigestRule is TestRealTextDigest with the short-query rule
// on, as serve and the anchors harness search (k 1, 10, 12, 20 and 40:
// pruned), into MCPVEC_BENCH_RESULTS_RULE.
//
//	MCPVEC_BENCH_RESULTS_RULE=/tmp/r.txt MCPVEC_BENCH_PASSAGES=… MCPVEC_BENCH_QUERYTSV=… MCPVEC_BENCH_LEXDB=… \
//	  go test -run RealTextDigestRule -v ./index/lexical/
func TestRealTextDigestRule(t *testing.T) {
	out := os.Getenv("MCPVEC_BENCH_RESULTS_RULE")
	if out == "" {
		t.Skip("set MCPVEC_BENCH_RESULTS_RULE")
	}
	withShortQueries(t)
	realTextDigest(t, out, 1, 10, 12, 20, 40)
}
