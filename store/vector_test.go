package store_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
	bolt "go.etcd.io/bbolt"
)

func sums(t *testing.T, db *store.DB) map[uint64]uint32 {
	t.Helper()
	got := map[uint64]uint32{}
	err := db.View(func(tx *store.Tx) error {
		for seq, sum := range tx.VectorSums() {
			got[seq] = sum
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestVectorSumsFollowWrites(t *testing.T) {
	db := MustOpenDB(t)
	d, c, v := testDoc("aaaa", "/a", "one", "two")
	res, err := db.PutDocument(d, c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := sums(t, db)
	if len(got) != 2 {
		t.Fatalf("sums = %v, want 2", got)
	}
	for i, seq := range res.Added {
		if want := store.VectorSum(store.EncodeVector(v[i])); got[seq] != want {
			t.Errorf("sum of %d = %x, want %x", seq, got[seq], want)
		}
	}
	nv := []float32{9, 9, 9, 9}
	err = db.Update(func(tx *store.Tx) error { return tx.PutVector(res.Added[0], nv) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sums(t, db)[res.Added[0]], store.VectorSum(store.EncodeVector(nv)); got != want {
		t.Errorf("sum after PutVector = %x, want %x", got, want)
	}
	if _, err := db.DeleteDocument("aaaa"); err != nil {
		t.Fatal(err)
	}
	if got := sums(t, db); len(got) != 0 {
		t.Fatalf("sums after delete = %v", got)
	}
}

func TestReadVectors(t *testing.T) {
	db := MustOpenDB(t)
	d, c, v := testDoc("aaaa", "/a", "one", "two", "three")
	res, err := db.PutDocument(d, c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	seqs := []uint64{res.Added[2], 999, res.Added[0]}
	var seen []int
	err = db.ReadVectors(seqs, func(i int, vec []float32) {
		seen = append(seen, i)
		want := v[2]
		if i == 2 {
			want = v[0]
		}
		if len(vec) != 4 || vec[0] != want[0] || vec[3] != want[3] {
			t.Errorf("vector %d = %v, want %v", i, vec, want)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 2 {
		t.Fatalf("calls for %v, want [0 2] (999 has no vector)", seen)
	}
	allocs := testing.AllocsPerRun(100, func() {
		db.ReadVectors(seqs, func(int, []float32) {})
	})
	t.Logf("allocations per ReadVectors: %v", allocs) // bbolt's transaction allocates; the vectors do not
}

// A schema-1 library (no checksums) is upgraded when opened for writing and
// read with checksums computed on the fly when opened read-only.
func TestSchema1Upgrade(t *testing.T) {
	db, path := openNew(t, nil)
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	mustPut(t, db, "aaaa", "/a", "one", "two")
	want := sums(t, db)
	db.Close()
	downgrade(t, path)

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := sums(t, ro); len(got) != 2 || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("read-only schema-1 sums = %v, want %v", got, want)
	}
	if m, _ := ro.Meta(); m.SchemaVersion != 1 {
		t.Errorf("read-only open changed the schema to %d", m.SchemaVersion)
	}
	if err := ro.Check(); err != nil {
		t.Errorf("read-only schema-1 check: %v", err)
	}
	ro.Close()

	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m, _ := db.Meta(); m.SchemaVersion != store.SchemaVersion {
		t.Errorf("schema after upgrade = %d, want %d", m.SchemaVersion, store.SchemaVersion)
	}
	if got := sums(t, db); len(got) != 2 || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("upgraded sums = %v, want %v", got, want)
	}
	if err := db.Check(); err != nil {
		t.Errorf("upgraded check: %v", err)
	}
}

// downgrade turns a library into what schema 1 wrote: no checksum bucket,
// no totals record.
func downgrade(t *testing.T, path string) {
	t.Helper()
	alterFile(t, path, func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte("vsums")); err != nil {
			return err
		}
		if err := tx.Bucket([]byte("meta")).Delete([]byte("totals")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("1"))
	})
}

func TestCheckFindsWrongSum(t *testing.T) {
	db, path := openNew(t, nil)
	db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: 4})
	mustPut(t, db, "aaaa", "/a", "one")
	db.Close()
	alterFile(t, path, func(tx *bolt.Tx) error {
		k, _ := tx.Bucket([]byte("vsums")).Cursor().First()
		return tx.Bucket([]byte("vsums")).Put(k, []byte{1, 2, 3, 4})
	})
	checkFinds(t, path, "wrong vector checksum")
}

// BenchmarkReadVectors is the per-search cost of re-scoring through the
// store: 30 vectors (3·k for k 10) read in one transaction, out of 2000.
func BenchmarkReadVectors(b *testing.B) {
	for _, dim := range []int{256, 1024} {
		b.Run(fmt.Sprintf("d=%d", dim), func(b *testing.B) {
			db := storetest.MustOpen(b, &store.Options{NoSync: true})
			db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "t", Dimensions: dim})
			var seqs []uint64
			for d := range 100 {
				var texts []string
				for range 20 {
					texts = append(texts, "passage")
				}
				doc, c, _ := testDoc(fmt.Sprintf("d%03d", d), fmt.Sprintf("/%d", d), texts...)
				vecs := make([][]float32, len(c))
				for i := range vecs {
					vecs[i] = make([]float32, dim)
					vecs[i][i%dim] = 1
				}
				res, err := db.PutDocument(doc, c, vecs, nil)
				if err != nil {
					b.Fatal(err)
				}
				seqs = append(seqs, res.Added...)
			}
			r := rand.New(rand.NewPCG(1, 2))
			want := make([]uint64, 30)
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				for i := range want {
					want[i] = seqs[r.IntN(len(seqs))]
				}
				n := 0
				if err := db.ReadVectors(want, func(int, []float32) { n++ }); err != nil || n != len(want) {
					b.Fatalf("read %d of %d: %v", n, len(want), err)
				}
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user+system CPU time (the machine is shared:
// wall time per operation overstates the cost).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
