package main

import (
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/lexical"
	"go.etcd.io/bbolt"
)

// TestRetokenizeCost measures the one-time cost of opening an index saved
// by an earlier analysis.TokenizerVersion: MCPVEC_ANCHORS_RETOKENIZE names
// an mcpvec.db a run of an older build left in its -work folder, and
// MCPVEC_ANCHORS_SET the set whose passages it holds. Loading it
// tokenises every passage again (index/lexical Load); the test logs the
// wall and CPU time and checks the index is then of this version. Opt-in
// (docs/benchmarks/known-item.md):
//
//	MCPVEC_ANCHORS_RETOKENIZE=/tmp/an/work-base/mcpvec.db MCPVEC_ANCHORS_SET=/tmp/rtc/100000 \
//	  go test -run TestRetokenizeCost -v .
func TestRetokenizeCost(t *testing.T) {
	path, set := os.Getenv("MCPVEC_ANCHORS_RETOKENIZE"), os.Getenv("MCPVEC_ANCHORS_SET")
	if path == "" || set == "" {
		t.Skip("set MCPVEC_ANCHORS_RETOKENIZE and MCPVEC_ANCHORS_SET")
	}
	ps, err := readPassages(set+"/passages.tsv", true)
	if err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	kv := boltKV{tx.Bucket([]byte("lexical"))}
	stored, outdated := lexical.Outdated(kv)
	ids := func(yield func(uint64) bool) {
		for i := range ps {
			if !yield(uint64(i)) {
				return
			}
		}
	}
	var ix *lexical.Index
	wall, cpu, err := timeBuild(func() (err error) {
		ix, _, err = lexical.LoadSynced(lexical.InPlace(kv), lexical.DefaultConfig(), ids, func(id uint64) (string, error) { return ps[id].text, nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Unload()
	t.Logf("stored %s (outdated %v), now %s: load of %d passages took %v wall, %v CPU",
		stored, outdated, analysis.TokenizerVersion, len(ps), wall, cpu)
	if _, n := ix.DocFreq(""); n != len(ps) {
		t.Errorf("loaded %d passages, want %d", n, len(ps))
	}
}
